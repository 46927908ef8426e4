"""Pictures of the backward graph: `make_dot` (torchviz's drop-in) and module scopes."""

from __future__ import annotations

from ..autograd.scope import module_scope, record_modules
from . import scope
from .dot import make_dot

__all__ = ["make_dot", "module_scope", "record_modules", "scope"]
