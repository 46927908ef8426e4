"""The module-call stack as graph views see it (it lives in `dyngrad.autograd.scope`)."""

from __future__ import annotations

from ..autograd.scope import (
    annotate,
    current,
    enter,
    exit,
    label,
    module_scope,
    record_modules,
    spans_of,
)

__all__ = [
    "enter",
    "exit",
    "annotate",
    "current",
    "label",
    "module_scope",
    "record_modules",
    "spans_of",
]
