"""PyTorch's type promotion applied to an op's input arrays before the NumPy forward.

NumPy promotes differently (`int64 + float32 -> float64`, `float32 + 0-d float64 -> float64`,
`exp(int) -> float64`); these casts make the NumPy forward produce PyTorch's result dtype.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..backend import dtypes
from ..backend.dtypes import defaults, from_numpy_dtype, promote_operands, scalar_dtype

__all__ = ["binary", "floating", "binary_floating", "result_type"]

_ARRAY = np.ndarray


def result_type(*operands) -> dtypes.dtype:
    """Matches `torch.result_type` for any mix of tensors and Python numbers."""
    dims, zero_dims, scalars = [], [], []
    for x in operands:
        if isinstance(x, Tensor):
            (dims if x._data.ndim else zero_dims).append(from_numpy_dtype(x._data.dtype))
        elif isinstance(x, (bool, int, float, complex)):
            scalars.append(scalar_dtype(x, defaults.float))
        elif x is not None:
            raise TypeError(f"result_type: unsupported operand {type(x).__name__}")
    return promote_operands(dims, zero_dims, scalars)


def _cast(arrays: list, target: dtypes.dtype) -> list:
    # Python numbers stay as they are: NumPy treats them as weak, like PyTorch does.
    np_type = target.np
    return [a.astype(np_type) if type(a) is _ARRAY and a.dtype != np_type else a
            for a in arrays]


def binary(arrays: list, args: tuple) -> list:
    """Cast the arrays of an elementwise op to PyTorch's promoted dtype (fast when equal)."""
    first = None
    for a in arrays:
        if type(a) is _ARRAY:
            if first is None:
                first = a.dtype
            elif a.dtype != first:
                return _cast(arrays, result_type(*args))
    if first is not None and first.kind not in "fc" and first != dtypes.bfloat16.np:
        for a in arrays:
            if type(a) is float or type(a) is complex:
                return _cast(arrays, result_type(*args))
    return arrays


def floating(arrays: list, args: tuple) -> list:
    """Unary float ops (`exp`, `sigmoid`, ...) compute integer inputs in the default dtype."""
    a = arrays[0]
    if a.dtype.kind in "fc" or a.dtype == dtypes.bfloat16.np:
        return arrays
    return [a.astype(defaults.float.np)] + list(arrays[1:])


def binary_floating(arrays: list, args: tuple) -> list:
    """True division and friends: promote, then integers become the default float dtype."""
    arrays = binary(arrays, args)
    for a in arrays:
        if type(a) is _ARRAY:
            if a.dtype.kind in "fc" or a.dtype == dtypes.bfloat16.np:
                return arrays
            break
    target = defaults.float.np
    return [a.astype(target) if type(a) is _ARRAY else a for a in arrays]
