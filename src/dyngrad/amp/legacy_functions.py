"""PyTorch's older per-device autocast functions (`torch.set_autocast_cpu_enabled`,
`get_autocast_gpu_dtype`, ...), each warning as PyTorch does and reading or setting the state
of `torch.set_autocast_enabled(device, ...)`, plus the nesting counters `autocast` keeps."""

from __future__ import annotations

import warnings

from . import autocast_mode
from .autocast_mode import (
    get_autocast_dtype,
    is_autocast_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)

__all__ = [
    "autocast_decrement_nesting",
    "autocast_increment_nesting",
    "get_autocast_cpu_dtype",
    "get_autocast_gpu_dtype",
    "is_autocast_cpu_enabled",
    "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled",
    "set_autocast_gpu_dtype",
]


def _deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"torch.{old} is deprecated. Please use torch.{new} instead.",
        DeprecationWarning,
        stacklevel=3,
    )


def is_autocast_cpu_enabled() -> bool:
    """Matches `torch.is_autocast_cpu_enabled` (deprecated)."""
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """Matches `torch.set_autocast_cpu_enabled` (deprecated)."""
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    """Matches `torch.get_autocast_cpu_dtype` (deprecated)."""
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype) -> None:
    """Matches `torch.set_autocast_cpu_dtype` (deprecated)."""
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    """Matches `torch.get_autocast_gpu_dtype` (deprecated)."""
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype) -> None:
    """Matches `torch.set_autocast_gpu_dtype` (deprecated)."""
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


def autocast_increment_nesting() -> int:
    """Matches `torch.autocast_increment_nesting`: this thread's autocast depth, one deeper."""
    autocast_mode._state.nesting += 1
    return autocast_mode._state.nesting


def autocast_decrement_nesting() -> int:
    """Matches `torch.autocast_decrement_nesting`: this thread's autocast depth, one less."""
    autocast_mode._state.nesting -= 1
    return autocast_mode._state.nesting
