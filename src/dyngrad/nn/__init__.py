"""`torch.nn`: Module and its registration, layers, losses, functional, init, utils, parallel."""

from __future__ import annotations

from . import attention, functional, init, parallel, utils  # noqa: F401
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .parallel import DataParallel  # noqa: F401
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401

__all__ = sorted(
    set(_modules_all)
    | {"Parameter", "Buffer", "DataParallel", "functional", "init", "parallel", "utils"}
    | {"UninitializedBuffer", "UninitializedParameter"}
)
