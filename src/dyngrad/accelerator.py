"""`torch.accelerator`: the device-agnostic accelerator API, answered as PyTorch answers it.

dyngrad's only accelerator would be CUDA (through CuPy); until that backend lands there is
none, so `is_available()` is False, `current_accelerator()` None, `device_count()` 0, and
every call that needs a device raises PyTorch's "Cannot access accelerator device when none
is available."
"""

from __future__ import annotations

import warnings
from collections import OrderedDict

from . import cuda
from .runtime import device

__all__ = [
    "current_accelerator",
    "current_device_idx",
    "current_device_index",
    "current_stream",
    "device_count",
    "device_index",
    "empty_cache",
    "get_memory_info",
    "is_available",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_accumulated_memory_stats",
    "reset_peak_memory_stats",
    "set_device_idx",
    "set_device_index",
    "set_stream",
    "synchronize",
]

_NONE_AVAILABLE = "Cannot access accelerator device when none is available."


def _require_accelerator():
    """The module that runs the accelerator (dyngrad.cuda), or PyTorch's error."""
    if not cuda.is_available():
        raise RuntimeError(_NONE_AVAILABLE)
    return cuda


def is_available() -> bool:
    """Matches `torch.accelerator.is_available`: False while dyngrad has no device backend."""
    return cuda.is_available()


def current_accelerator(check_available: bool = False):
    """Matches `torch.accelerator.current_accelerator`: `device("cuda")` or None."""
    return device("cuda") if cuda.is_available() else None


def device_count() -> int:
    return cuda.device_count() if cuda.is_available() else 0


def current_device_index() -> int:
    return _require_accelerator().current_device()


def current_device_idx() -> int:
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_index(device, /) -> None:
    if device is None:
        raise ValueError(
            "Expected a torch.device with a specified index or an integer, but got:None"
        )
    _require_accelerator().set_device(device)


def set_device_idx(device, /) -> None:
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


class device_index:  # noqa: N801 - PyTorch's name
    """Matches `torch.accelerator.device_index`: `None` switches nothing."""

    def __init__(self, device: int | None, /) -> None:
        self.idx = device
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx is not None:
            accelerator = _require_accelerator()
            self.prev_idx = accelerator.current_device()
            accelerator.set_device(self.idx)

    def __exit__(self, *exc_info) -> None:
        if self.idx is not None:
            _require_accelerator().set_device(self.prev_idx)


def current_stream(device=None, /):
    return _require_accelerator().current_stream(device)


def set_stream(stream) -> None:
    _require_accelerator().set_stream(stream)


def synchronize(device=None, /) -> None:
    _require_accelerator().synchronize(device)


def empty_cache() -> None:
    _require_accelerator().empty_cache()


def memory_allocated(device_index=None, /) -> int:
    return _require_accelerator().memory_allocated(device_index)


def max_memory_allocated(device_index=None, /) -> int:
    return _require_accelerator().max_memory_allocated(device_index)


def memory_reserved(device_index=None, /) -> int:
    return _require_accelerator().memory_reserved(device_index)


def max_memory_reserved(device_index=None, /) -> int:
    return _require_accelerator().max_memory_reserved(device_index)


def memory_stats(device_index=None, /) -> OrderedDict:
    return _require_accelerator().memory_stats(device_index)


def reset_peak_memory_stats(device_index=None, /) -> None:
    _require_accelerator().reset_peak_memory_stats(device_index)


def reset_accumulated_memory_stats(device_index=None, /) -> None:
    _require_accelerator().reset_accumulated_memory_stats(device_index)


def get_memory_info(device_index=None, /) -> tuple[int, int]:
    return _require_accelerator().mem_get_info(device_index)
