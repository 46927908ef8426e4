"""torch's top-level constants (numbers and memory formats), the warn-always flag and the
float32 matmul precision setting."""

from __future__ import annotations

import math
import warnings

from .runtime.memory_format import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    memory_format,
    preserve_format,
)
from .runtime.warn_always import is_warn_always_enabled, set_warn_always

__all__ = [
    "channels_last",
    "channels_last_3d",
    "contiguous_format",
    "memory_format",
    "preserve_format",
    "e",
    "inf",
    "nan",
    "newaxis",
    "pi",
    "get_float32_matmul_precision",
    "is_warn_always_enabled",
    "set_float32_matmul_precision",
    "set_warn_always",
]

e = math.e
inf = math.inf
nan = math.nan
pi = math.pi
newaxis = None

_matmul_precision = "highest"


def set_float32_matmul_precision(precision: str) -> None:
    """Matches `torch.set_float32_matmul_precision`.

    The setting is stored and read back, but dyngrad always multiplies float32 matrices in
    full float32, as "highest" does: NumPy has no TensorFloat32 or bfloat16 passes.
    """
    global _matmul_precision
    if not isinstance(precision, str):
        raise RuntimeError(
            f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}"
        )
    if precision not in ("highest", "high", "medium"):
        warnings.warn(  # PyTorch's words, its missing space included
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect.",
            UserWarning,
            stacklevel=2,
        )
        return
    _matmul_precision = precision


def get_float32_matmul_precision() -> str:
    """Matches `torch.get_float32_matmul_precision`: the stored setting (see the setter)."""
    return _matmul_precision
