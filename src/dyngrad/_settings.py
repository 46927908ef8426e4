"""Process-wide settings PyTorch programs set and read: the default device (cpu only),
deterministic algorithms (dyngrad's are all deterministic), `set_anomaly_enabled`, and the
Tensor memory predicates (`share_memory_`, `is_shared`, `pin_memory`, `is_pinned`) with
their CPU meaning, plus `Tensor.new_empty_strided`."""

from __future__ import annotations

import mmap
import os
import weakref

import numpy as np

from ._tensor import Tensor
from .autograd.anomaly import _set as _set_anomaly
from .ops.shape.storage import empty_strided
from .runtime import device as _device
from .runtime.type_info import finfo, iinfo

__all__ = [
    "are_deterministic_algorithms_enabled",
    "get_default_device",
    "get_deterministic_debug_mode",
    "detach_",
    "get_device",
    "finfo",
    "iinfo",
    "is_deterministic_algorithms_warn_only_enabled",
    "set_anomaly_enabled",
    "set_default_device",
    "set_deterministic_debug_mode",
    "use_deterministic_algorithms",
]

_NO_ACCELERATOR = "Cannot access accelerator device when none is available."
_deterministic = {"enabled": False, "warn_only": False}
_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def get_default_device() -> _device:
    """Matches `torch.get_default_device`: always cpu in dyngrad."""
    return _device("cpu")


def set_default_device(device) -> None:
    """Matches `torch.set_default_device` for cpu (and None); dyngrad makes tensors on the
    cpu by default, so another device is refused rather than silently ignored."""
    if device is None or _device(device).type == "cpu":
        return
    raise RuntimeError(
        f"{_NO_ACCELERATOR}\n[dyngrad] set_default_device supports only 'cpu'; pass "
        f"device='{_device(device).type}' to each factory instead."
    )


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Matches `torch.use_deterministic_algorithms`: recorded only, since every dyngrad
    kernel (NumPy's) is deterministic already."""
    if not isinstance(mode, bool):
        raise TypeError(
            f"use_deterministic_algorithms expects a bool, but got {type(mode).__name__}"
        )
    _deterministic["enabled"], _deterministic["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    """Matches `torch.are_deterministic_algorithms_enabled`."""
    return _deterministic["enabled"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Matches `torch.is_deterministic_algorithms_warn_only_enabled`."""
    return _deterministic["warn_only"]


def set_deterministic_debug_mode(debug_mode) -> None:
    """Matches `torch.set_deterministic_debug_mode`: 0/"default", 1/"warn", 2/"error"."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                f"but got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """Matches `torch.get_deterministic_debug_mode`."""
    if not _deterministic["enabled"]:
        return 0
    return 1 if _deterministic["warn_only"] else 2


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Matches `torch.set_anomaly_enabled` (what `autograd.set_detect_anomaly` sets)."""
    _set_anomaly(enabled, check_nan)


# ---- Tensor memory predicates ---------------------------------------------------------------


# Note [Shared memory]
# `share_memory_` moves a tensor's array into shared memory: a memfd (Linux; an anonymous
# shared mapping elsewhere) that processes forked afterwards map as the parent does, and that
# torch.multiprocessing sends to other processes (a Queue, a spawned Process's arguments) as
# a file descriptor, as PyTorch's "file_descriptor" strategy does; the receiver maps the same
# memory. So Hogwild training (`model.share_memory()`, then processes that step the same
# parameters) sees every process's updates, as with PyTorch. Only a tensor that owns its array
# moves (a view is marked shared and keeps its base's memory; torch would move the base), and
# views made earlier keep the old array.


def shared_array(data: np.ndarray) -> tuple:
    """(a copy of `data` in shared memory, its file descriptor or None)."""
    fd = os.memfd_create("dyngrad-shared") if hasattr(os, "memfd_create") else None
    if fd is None:
        buffer = mmap.mmap(-1, data.nbytes)
    else:
        os.ftruncate(fd, data.nbytes)
        buffer = mmap.mmap(fd, data.nbytes)
    shared = np.frombuffer(buffer, dtype=data.dtype).reshape(data.shape)
    shared[...] = data
    return shared, fd


def adopt_shared(tensor: Tensor, shared: np.ndarray, fd) -> None:
    """Make `shared` (mapped from `fd`) the tensor's memory; the descriptor lives as long."""
    tensor._data = shared
    tensor._shared = True
    tensor._shared_memory = (shared, fd)  # what torch.multiprocessing sends for it
    if fd is not None:
        weakref.finalize(tensor, os.close, fd)


def _share_memory_(self):
    """Matches `Tensor.share_memory_` (see Note [Shared memory]); returns the tensor."""
    data = self._data
    if (
        getattr(self, "_shared_memory", None) is None
        and self._base is None
        and type(data) is np.ndarray
        and data.nbytes
    ):
        adopt_shared(self, *shared_array(data))
    self._shared = True
    return self


def _is_shared(self) -> bool:
    return getattr(self, "_shared", False)


def _pin_memory(self, device=None):
    raise RuntimeError(
        f"{_NO_ACCELERATOR}\n[dyngrad] pinned memory needs an accelerator; on the cpu the "
        "tensor can be used as it is."
    )


def _is_pinned(self, device=None) -> bool:
    return False


def _new_empty_strided(
    self,
    size,
    stride,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
):
    """Matches `Tensor.new_empty_strided`: `empty_strided` with this tensor's dtype."""
    return empty_strided(size, stride, dtype=dtype or self.dtype, requires_grad=requires_grad)


def install(cls) -> None:
    """Attach the memory predicates and `new_empty_strided` to Tensor."""
    cls.share_memory_ = _share_memory_
    cls.is_shared = _is_shared
    cls.pin_memory = _pin_memory
    cls.is_pinned = _is_pinned
    cls.new_empty_strided = _new_empty_strided
    cls.get_device = _get_device


def detach_(input):
    """Matches `torch.detach_`."""
    return input.detach_()


def get_device(input) -> int:
    """Matches `torch.get_device`: -1 for a cpu tensor, else the device index."""
    return _get_device(input)


def _get_device(self) -> int:
    return -1 if self.device.type == "cpu" else (self.device.index or 0)


install(Tensor)
