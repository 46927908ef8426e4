"""`dyngrad.cpu`: PyTorch's `torch.cpu` device module (the CPU is always there) and its amp."""

from __future__ import annotations

from . import amp

__all__ = [
    "amp",
    "is_available",
    "is_initialized",
    "device_count",
    "current_device",
    "set_device",
    "synchronize",
]


def is_available() -> bool:
    """Matches `torch.cpu.is_available`: always True."""
    return True


def is_initialized() -> bool:
    """Matches `torch.cpu.is_initialized`: always True."""
    return True


def device_count() -> int:
    """Matches `torch.cpu.device_count`: 1."""
    return 1


def current_device() -> str:
    """Matches `torch.cpu.current_device`: "cpu"."""
    return "cpu"


def set_device(device) -> None:
    """Matches `torch.cpu.set_device`: a no-op."""


def synchronize(device=None) -> None:
    """Matches `torch.cpu.synchronize`: a no-op (CPU work is synchronous)."""
