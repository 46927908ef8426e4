"""PyTorch's argument checks, with its messages: int lists (sizes), Python scalars, new shapes.

# Note [Argument checks]
# PyTorch parses every Python argument in C++ before an op runs, so a float size, a Python int
# past int64 or a value that does not fit the tensor's dtype fail with its own words. dyngrad
# checks the same things where an argument enters: `int_list` for sizes, `scalar_to` for a
# Python number written into a tensor, `new_shape` before memory for a new tensor is taken.
# Each takes a fast path for plain ints and floats, so the common call pays a few compares.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from ..._tensor import Tensor
from ...runtime import dtypes
from .argument_errors import (
    REQUIRED,
    invalid_combination,
    list_type_error,
    method_offset,
    missing_error,
    type_error,
    type_name,
)

__all__ = [
    "as_int",
    "as_ints",
    "type_name",
    "int_arg",
    "int_list",
    "size_arg",
    "invalid_combination",
    "new_shape",
    "allocation_error",
    "scalar_to",
    "unpack_int64",
    "is_int",
    "fill_value",
    "INT64_MAX",
]

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _as_int(value, first: bool):
    # an int list takes Python ints, NumPy integers and one-element integer tensors; `True`
    # only after the first element (PyTorch looks at the first element's type, then unpacks)
    if type(value) is int or isinstance(value, np.integer):
        return int(value)
    if type(value) is bool:
        return None if first else int(value)
    if isinstance(value, Tensor) and value._data.size == 1 and value._data.dtype.kind in "iu":
        return int(value._data.reshape(()))
    return None


def is_int(value) -> bool:
    """Whether PyTorch's parser takes `value` for an int parameter."""
    return _as_int(value, first=True) is not None


def unpack_int64(value: int, error=ValueError) -> int:
    if not INT64_MIN <= value <= INT64_MAX:
        raise error("Overflow when unpacking long long")
    return value


def int_arg(fn: str, name: str, position: int, value) -> int:
    """An int parameter as PyTorch parses it; `(position 1) must be int, not float` if not.

    `position` counts `self`, as the function form does. See Note [Argument errors].
    """
    if type(value) is int:
        return unpack_int64(value)
    n = _as_int(value, first=True)
    if n is None:
        position -= method_offset()
        raise TypeError(
            f"{fn}(): argument '{name}' (position {position}) must be int, not {type_name(value)}"
        )
    return unpack_int64(n)


def as_int(value) -> int:
    """An int parameter (a NumPy integer or an integer tensor will do); PyTorch's TypeError,
    naming the op and the parameter the user called, otherwise. See Note [Argument errors]."""
    if type(value) is int:
        return value
    if type(value) is not bool:
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise missing_error(value) if value is REQUIRED else type_error(value, "int")


def as_ints(value) -> tuple:
    """An int-list parameter given as one int or a sequence of them, as PyTorch parses it."""
    if type(value) is int:
        return (value,)
    if isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            if type(v) is bool or not hasattr(v, "__index__"):
                raise list_type_error(value, i)
        return tuple(operator.index(v) for v in value)
    if type(value) is not bool and hasattr(value, "__index__"):
        return (operator.index(value),)
    raise missing_error(value) if value is REQUIRED else type_error(value, "tuple of ints")


def int_list(
    fn: str, args: tuple, name: str = "size", position: int = 1, varargs: bool = True
) -> tuple:
    """`args` read as PyTorch reads an int-list parameter; its TypeError when they are not.

    With `varargs`, `f(2, 3)`, `f((2, 3))`, `f([2, 3])` and `f(Size)` all mean (2, 3).
    """
    seq = args
    if varargs and len(args) == 1:
        value = args[0]
        if type(value) is int:
            return (unpack_int64(value, _unpack_error(fn, name, 1)),)
        single = _as_int(value, first=True)
        if single is not None:
            return (unpack_int64(single, _unpack_error(fn, name, 1)),)
        seq = value
    elif not varargs:
        seq = args[0]
    if type(seq) is tuple:  # the common case: plain ints already (a loop: cheaper than all())
        for s in seq:
            if type(s) is not int or not INT64_MIN <= s <= INT64_MAX:
                break
        else:
            return seq
    return _slow_int_list(fn, args, seq, name, position, varargs)


def size_arg(fn: str, args: tuple, size, position: int = 1) -> tuple:
    """The shape of a factory called as `fn(2, 3)`, `fn((2, 3))` or `fn(size=(2, 3))`."""
    if size is None:
        return int_list(fn, args, position=position)
    if args:
        raise TypeError(f"{fn}() got multiple values for argument 'size'")
    if not isinstance(size, (tuple, list)) or not all(is_int(s) for s in size):
        raise TypeError(f"{fn}(): argument 'size' must be tuple of ints, not {type_name(size)}")
    return int_list(fn, (size,), position=position, varargs=False)


def _slow_int_list(fn, args, seq, name, position, varargs) -> tuple:
    position -= method_offset()
    where = f"{fn}(): argument '{name}' (position {position})"
    if not isinstance(seq, (tuple, list)):
        raise TypeError(f"{where} must be tuple of ints, not {type_name(seq)}")
    if seq is args and varargs and _as_int(seq[0], first=True) is None:
        # PyTorch tries the int-list overload only when the first vararg is an int
        raise TypeError(
            f"{fn}() takes {position} positional argument"
            f"{'s' if position > 1 else ''} but {position - 1 + len(args)} were given"
        )
    if seq and _as_int(seq[0], first=True) is None:
        raise TypeError(
            f"{where} must be tuple of ints, but found element of type {type_name(seq[0])} at pos 0"
        )
    out = []
    for i, s in enumerate(seq):
        n = _as_int(s, first=False)
        if n is None:
            raise _unpack_error(fn, name, i + 1)(
                f"type must be tuple of ints,but got {type_name(s)}"
            )
        out.append(unpack_int64(n, _unpack_error(fn, name, i + 1)))
    return tuple(out)


def _unpack_error(fn: str, name: str, pos: int):
    def error(reason: str) -> TypeError:
        return TypeError(
            f"{fn}(): argument '{name}' failed to unpack the object at pos {pos} "
            f'with error "{reason}"'
        )

    return error


def new_shape(shape: tuple, itemsize: int, negative: str | None = None) -> tuple:
    """Check a new tensor's shape as PyTorch does before it allocates; `negative` overrides
    the message for a negative size (`zeros` has its own)."""
    nbytes = itemsize
    for s in shape:
        if s < 0:
            raise RuntimeError(
                negative or f"Trying to create tensor with negative dimension {s}: {list(shape)}"
            )
        nbytes *= s
    if nbytes > INT64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    return shape


def allocation_error(nbytes: int) -> RuntimeError:
    """PyTorch's CPU allocator failure, for memory NumPy could not get."""
    return RuntimeError(
        f"DefaultCPUAllocator: can't allocate memory: you tried to allocate "
        f"{nbytes} bytes. Error code 12 (Cannot allocate memory)"
    )


# The C++ type names PyTorch's checked conversion of a scalar reports (`c10::checked_convert`)
_C_NAMES = {
    "uint8": "uint8_t",
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int",
    "int64": "int64_t",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "float32": "float",
    "float64": "double",
}


def _limits(dtype) -> tuple:
    # exact ints for integer types: 2**63 must not compare equal to int64's max as a float
    if dtype._category == 1:
        return int(np.iinfo(dtype.np).min), int(np.iinfo(dtype.np).max)
    if dtype is dtypes.bfloat16:  # its finfo, written out: See Note [bfloat16 on demand]
        return -3.3895313892515355e38, 3.3895313892515355e38
    return float(np.finfo(dtype.np).min), float(np.finfo(dtype.np).max)


_LIMITS = {d: _limits(d) for d in dtypes.DTYPES if d._category in (1, 2)}


def scalar_to(value, dtype, names: dict | None = None):
    """`value` (a Python number) after PyTorch's checks for writing it into `dtype`.

    PyTorch reads a Python int as int64, or uint64 above that, and refuses a value the dtype
    cannot hold (`c10::overflows`); a float's inf fits any floating dtype, NaN no integer one.
    `names` gives the dtype names for the message where PyTorch prints other ones.
    """
    if type(value) is int and INT64_MIN <= value <= INT64_MAX:
        if dtype._category != 1:
            return _check_real(value, dtype, names)
        lo, hi = _LIMITS[dtype]
        if lo <= value <= hi:
            return value
    elif type(value) is int:
        if value < INT64_MIN:
            raise OverflowError("can't convert negative int to unsigned")
        if value > 2**64 - 1:
            raise OverflowError("int too big to convert")
    if dtype._category in (0, 3):  # bool takes anything; complex takes every real number
        return value
    return _check_real(value, dtype, names)


def fill_value(value, dtype, names: dict | None = None):
    """`value` checked by `scalar_to`, then in the form NumPy writes as PyTorch would (a
    negative int wraps into uint8, a float truncates towards zero)."""
    kind = type(value)
    if kind is float and dtype._category == 2 or kind is int and dtype._category == 1:
        lo, hi = _LIMITS[dtype]  # the common case: a number that fits, written as it is
        if lo <= value <= hi:
            return value
    value = scalar_to(value, dtype, names)
    if isinstance(value, np.generic):
        value = value.item()
    if dtype is dtypes.bool_:
        return bool(value)
    if isinstance(value, complex) and dtype._category != 3:
        value = value.real
    if dtype._category == 1:
        value = int(value)
        if value < 0 and dtype is dtypes.uint8:
            value %= 256
    return value


def _check_real(value, dtype, names):
    if dtype._category in (0, 3):
        return value
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, complex):
        if value.imag != 0:
            _overflow(dtype, names)
        value = value.real
    lo, hi = _LIMITS[dtype]
    if isinstance(value, float) and math.isnan(value):
        if dtype._category == 1:
            _overflow(dtype, names)
        return value
    if isinstance(value, float) and math.isinf(value) and dtype._category == 2:
        return value
    if dtype is dtypes.uint8 and isinstance(value, int) and -hi <= value < 0:
        return value  # a negative int wraps into an unsigned type (two's complement)
    if not lo <= value <= hi:
        _overflow(dtype, names)
    return value


def _overflow(dtype, names):
    name = (names or _C_NAMES)[dtype.name]
    raise RuntimeError(f"value cannot be converted to type {name} without overflow")
