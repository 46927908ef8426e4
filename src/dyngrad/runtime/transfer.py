"""Moving arrays between devices. Only the CPU exists until the CuPy backend lands."""

from __future__ import annotations

from .device import device

__all__ = ["to_device", "cuda_available"]


def cuda_available() -> bool:
    return False


def to_device(tensor, target: device):
    if target.type == "cpu":
        return tensor
    if target.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    raise RuntimeError(f"dyngrad does not implement the '{target.type}' device")
