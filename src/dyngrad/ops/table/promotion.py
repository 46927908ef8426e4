"""PyTorch's type promotion applied to an op's input arrays before the NumPy forward.

NumPy promotes differently (`int64 + float32 -> float64`, `float32 + 0-d float64 -> float64`,
`exp(int) -> float64`); these casts make the NumPy forward produce PyTorch's result dtype.
"""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...runtime import dtypes
from ...runtime.dtypes import defaults, from_numpy_dtype, promote_operands, scalar_dtype
from .arguments import fill_value
from .errors import broadcast_error

__all__ = [
    "binary",
    "floating",
    "binary_floating",
    "where_values",
    "subtraction",
    "power",
    "rpower",
    "integral",
    "no_bool",
    "real_kernel",
    "result_type",
]

_ARRAY = np.ndarray


def result_type(*operands) -> dtypes.dtype:
    """Matches `torch.result_type` for any mix of tensors and Python numbers."""
    dims, zero_dims, scalars = [], [], []
    big = None
    for x in operands:
        if isinstance(x, Tensor):
            (dims if x._data.ndim else zero_dims).append(from_numpy_dtype(x._data.dtype))
        elif isinstance(x, (bool, int, float, complex)):
            scalars.append(scalar_dtype(x, defaults.float))
            if type(x) is int and not -(2**63) <= x < 2**63:
                big = x
        elif x is not None:
            raise TypeError(f"result_type: unsupported operand {type(x).__name__}")
    if big is not None:
        tensors = promote_operands(dims, zero_dims, [])
        _uint64_scalar(big, tensors.np if dims or zero_dims else np.dtype(np.int64))
    return promote_operands(dims, zero_dims, scalars)


def _cast(arrays: list, target: dtypes.dtype) -> list:
    # Python numbers stay as they are: NumPy treats them as weak, like PyTorch does.
    np_type = target.np
    return [a.astype(np_type) if type(a) is _ARRAY and a.dtype != np_type else a for a in arrays]


def binary(arrays: list, args: tuple) -> list:
    """Cast the arrays of an elementwise op to PyTorch's promoted dtype (fast when equal)."""
    first = None
    for a in arrays:
        if type(a) is _ARRAY:
            if first is None:
                first = a.dtype
            elif a.dtype != first:
                return _cast(arrays, result_type(*args))
    if first is not None and first.kind not in "fcV":  # V: See Note [bfloat16 on demand]
        for a in arrays:
            if type(a) is float or type(a) is complex:
                return _cast(arrays, result_type(*args))
            if type(a) is int and not -(2**63) <= a < 2**63:
                _uint64_scalar(a, first)
            if type(a) is int and first.kind in "iu":
                lo, hi = _INT_RANGE[first]
                if not lo <= a <= hi:
                    return _wrap_ints(arrays, lo, hi)
    return arrays


def _uint64_scalar(a: int, first: np.dtype) -> None:
    # PyTorch reads a Python int past int64 as uint64 (up to 2**64), which only integer
    # tensors take (wrapping); a bool tensor cannot promote with it
    if a >= 2**64:
        raise OverflowError("int too big to convert")
    if a < -(2**63):
        raise OverflowError("can't convert negative int to unsigned")
    if first.kind == "b":
        raise RuntimeError(
            "Promotion for uint16, uint32, uint64 types is not supported, "
            "attempted to promote Bool and UInt64"
        )


_INT_RANGE = {
    np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
    for t in (np.uint8, np.int8, np.int16, np.int32, np.int64)
}


def _wrap_ints(arrays: list, lo: int, hi: int) -> list:
    # PyTorch casts a Python int to the tensor's integer type, wrapping around as C does
    # (`uint8 - -1` is `uint8 + 255`); NumPy would raise OverflowError instead
    span = hi - lo + 1
    return [(a - lo) % span + lo if type(a) is int else a for a in arrays]


def floating(arrays: list, args: tuple) -> list:
    """Unary float ops (`exp`, `sigmoid`, ...) compute integer inputs in the default dtype."""
    a = arrays[0]
    if a.dtype.kind in "fcV":  # V: bfloat16, See Note [bfloat16 on demand]
        return arrays
    return [a.astype(defaults.float.np)] + list(arrays[1:])


def binary_floating(arrays: list, args: tuple) -> list:
    """True division and friends: promote, then integers become the default float dtype."""
    for a in arrays:
        if type(a) is _ARRAY and a.dtype.kind in "fcV":
            return binary(arrays, args)
    target = result_type(*args)
    if not (target.is_floating_point or target.is_complex):
        target = defaults.float
    return _cast(arrays, target)


def where_values(arrays: list, args: tuple) -> list:
    """`where(condition, x, y)`: x and y promote, and two Python numbers give a tensor dtype."""
    values = arrays[1:]
    if any(type(a) is _ARRAY for a in values):
        if all(type(a) is _ARRAY for a in values):
            return [arrays[0]] + binary(values, args[1:])
        target = result_type(*args[1:])
        return [arrays[0]] + [_written(a, target) for a in values]
    target = result_type(*args[1:]).np
    return [arrays[0]] + [np.asarray(a, target) for a in values]


def _written(value, target: dtypes.dtype):
    # a Python number beside a tensor is converted to the result dtype, with PyTorch's check
    # when that is an integer type (a float result takes it as a double, unchecked)
    if type(value) is _ARRAY:
        return value.astype(target.np, copy=False)
    if target is dtypes.float16 or target is dtypes.bfloat16:
        return np.asarray(value, target.np)
    return np.asarray(fill_value(value, target), target.np)


def subtraction(arrays: list, args: tuple) -> list:
    """`sub`/`rsub`: PyTorch refuses bool operands (tensors or Python bools) before promoting."""
    kinds = [type(a) is bool or (type(a) is _ARRAY and a.dtype == np.bool_) for a in arrays]
    if all(kinds):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not "
            "supported. Use the `^` or `logical_xor()` operator instead."
        )
    if any(kinds):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` "
            "operator instead."
        )
    return binary(arrays, args)


def power(arrays: list, args: tuple) -> list:
    """`tensor ** number`: an integer tensor refuses a negative integer exponent."""
    exponent, kind = arrays[1], arrays[0].dtype.kind
    if (
        type(exponent) is int
        and kind in "biu"
        or type(exponent) in (int, float)
        and (arrays[0].dtype == dtypes.float16.np or dtypes.is_bfloat16(arrays[0].dtype))
    ):
        # an int exponent of an integer tensor, or any of a half one, is converted to the
        # result dtype first (an int past int64 to int64 before that)
        if type(exponent) is int and exponent >= 2**63 and kind in "biu":
            fill_value(exponent, dtypes.int64)
        fill_value(exponent, result_type(*args))
    if arrays[0].dtype.kind in "iu" and type(exponent) is int and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return rpower(arrays, args)


def rpower(arrays: list, args: tuple) -> list:
    """`pow`: NumPy raises bool to int8; PyTorch gives the promoted dtype (bool ** 2 is int64)."""
    if any(type(a) is _ARRAY and a.dtype == np.bool_ for a in arrays):
        target = result_type(*args).np
        return [a.astype(target, copy=False) if type(a) is _ARRAY else a for a in arrays]
    return binary(arrays, args)


def _missing_kernel(kernel: str, np_dtype) -> NotImplementedError:
    return NotImplementedError(
        f"\"{kernel}\" not implemented for '{from_numpy_dtype(np_dtype)._legacy}'"
    )


def integral(kernel: str):
    """Promotion for integer-only ops (`&`, `|`, `^`): a float result has no kernel."""

    def promote(arrays: list, args: tuple) -> list:
        arrays = binary(arrays, args)
        for a in arrays:
            if type(a) is _ARRAY and a.dtype.kind not in "biu":
                check_broadcast(arrays)  # PyTorch sizes the output before it picks a kernel
                raise _missing_kernel(kernel, a.dtype)
        return arrays

    return promote


def check_broadcast(arrays: list) -> None:
    """PyTorch's error for arrays whose shapes do not broadcast, if they do not."""

    err = broadcast_error([a.shape for a in arrays if type(a) is _ARRAY])
    if err is not None:
        raise err


def floating_kernel(kernel: str):
    """Promotion for ops with float kernels only (`hypot`, `logaddexp`): no integer result."""

    def promote(arrays: list, args: tuple) -> list:
        arrays = binary(arrays, args)
        for a in arrays:
            if type(a) is _ARRAY and a.dtype.kind not in "fcV":
                raise _missing_kernel(kernel, a.dtype)
        return arrays

    return promote


def no_bool(kernel: str):
    """Promotion for unary ops with no bool kernel (`abs`)."""

    def promote(arrays: list, args: tuple) -> list:
        if arrays[0].dtype == np.bool_:
            raise _missing_kernel(kernel, arrays[0].dtype)
        return arrays

    return promote


_SINGLE_DOUBLE = frozenset({np.dtype(np.float32), np.dtype(np.float64)})


def real_kernel(kernel: str, base, half: bool = False):
    """Promotion by `base`, then PyTorch's missing-kernel error for a result dtype its CPU
    kernel lacks: complex always, float16 and bfloat16 unless `half` (torch.special's rows)."""

    def promote(arrays: list, args: tuple) -> list:
        arrays = base(arrays, args)
        for a in arrays:
            if type(a) is _ARRAY and a.dtype not in _SINGLE_DOUBLE:
                if not half or a.dtype.kind == "c":
                    raise _missing_kernel(kernel, a.dtype)
        return arrays

    return promote
