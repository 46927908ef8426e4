"""`torch.backends.mkl`: Intel MKL, which dyngrad does not call itself."""

from __future__ import annotations


def is_available() -> bool:
    return False
