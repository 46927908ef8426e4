"""`dyngrad.cuda`: PyTorch's `torch.cuda` as a CPU-only build of PyTorch answers it.

Until the CuPy backend lands there is no CUDA device: `is_available()` is False, seeding and
cache calls do nothing, memory statistics are 0 (as in PyTorch without CUDA), and calls that
need a device raise PyTorch's "Torch not compiled with CUDA enabled".
"""

from __future__ import annotations

from collections import OrderedDict

from ..runtime.transfer import cuda_available
from . import amp

__all__ = [
    "is_available",
    "device_count",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "empty_cache",
    "memory_allocated",
    "max_memory_allocated",
    "memory_reserved",
    "max_memory_reserved",
    "memory_stats",
    "reset_peak_memory_stats",
    "synchronize",
    "current_device",
    "set_device",
    "get_device_name",
    "get_device_properties",
    "get_device_capability",
    "is_bf16_supported",
    "amp",
]

_NOT_COMPILED = "Torch not compiled with CUDA enabled"


def is_available() -> bool:
    """Matches `torch.cuda.is_available`: False until dyngrad runs on CuPy."""
    return cuda_available()


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Seeds the CUDA generators; with no device there is nothing to seed (as in PyTorch)."""


manual_seed_all = manual_seed


def seed() -> None:
    pass


seed_all = seed


def empty_cache() -> None:
    """Releases cached device memory; there is none without a device."""


def memory_allocated(device=None) -> int:
    """Matches `torch.cuda.memory_allocated`: 0 bytes when CUDA is not there."""
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def memory_stats(device=None) -> OrderedDict:
    return OrderedDict()


def reset_peak_memory_stats(device=None) -> None:
    pass


def _no_device(*args, **kwargs):
    raise AssertionError(_NOT_COMPILED)


synchronize = current_device = set_device = get_device_name = _no_device
get_device_properties = get_device_capability = _no_device


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False
