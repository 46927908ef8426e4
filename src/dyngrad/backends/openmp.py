"""`torch.backends.openmp`: dyngrad has no OpenMP build of its own."""

from __future__ import annotations


def is_available() -> bool:
    return False
