"""`torch.nn`: Module and its registration model, layers, losses, functional, init, utils."""

from __future__ import annotations

from . import functional, init, utils  # noqa: F401
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter  # noqa: F401

__all__ = sorted(set(_modules_all) | {"Parameter", "Buffer", "functional", "init", "utils"})
