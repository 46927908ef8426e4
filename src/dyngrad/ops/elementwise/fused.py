"""Fused pointwise arithmetic: `addcmul`, `addcdiv` and `lerp`."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...runtime import dtypes
from ...runtime.exact_math import fma32, fma64, multiply_add
from ..table import promotion
from ..table.argument_errors import REQUIRED, type_name
from ..table.errors import c_type_name
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .complex_numbers import conjugate

_ADDCDIV_INTEGER = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
    "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
    "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
    "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
    "for all dtypes."
)


def _value(x, value):
    # PyTorch casts `value` to the result dtype first: 0.5 is 0 for integer tensors
    return value if x.dtype.kind in "fcV" else int(value)


def _addcmul(xp, x, t1, t2, *, value):
    if x.dtype == bool:
        raise NotImplementedError("\"addcmul_cpu_out\" not implemented for 'Bool'")
    # (value * t1) * t2 + x, the last multiply-add fused as in PyTorch's kernel
    return multiply_add(_value(x, value) * t1, t2, x)


def lerp_arrays(x, end, weight):
    """PyTorch's CPU lerp on arrays (and a number or array weight): the two-sided form, exact
    at both ends, as one fused multiply-add, `fma(coeff, end - x, base)` with (weight, x)
    below |weight| 0.5 and (weight - 1, end) from it on, in float32 for float16/bfloat16.
    Rounding the product apart (1 ulp off in ~1 element of 7) would drift optimizers' and
    averaged models' state from PyTorch's."""
    dtype = x.dtype
    if dtype.kind == "c":  # complex: multiply and add, each rounded
        return np.where(
            np.abs(weight) < 0.5, x + weight * (end - x), end - (end - x) * (1 - weight)
        ).astype(dtype, copy=False)
    work = np.float64 if dtype == np.float64 else np.float32
    x, end = x.astype(work, copy=False), end.astype(work, copy=False)
    if isinstance(weight, np.ndarray) and weight.ndim:
        weight = weight.astype(work, copy=False)
        small = np.abs(weight) < 0.5
        coeff, base = np.where(small, weight, weight - work(1)), np.where(small, x, end)
    else:
        weight = work(weight)
        small = abs(weight) < 0.5
        coeff, base = (weight, x) if small else (weight - work(1), end)
    fused = fma64 if work is np.float64 else fma32
    return fused(coeff, end - x, base).astype(dtype, copy=False)


def _lerp_scalar(xp, x, end, *, weight):
    if x.dtype.kind not in "fcV":
        raise NotImplementedError(
            f'"lerp_kernel_scalar" not implemented for '
            f"'{dtypes.from_numpy_dtype(x.dtype)._legacy}'"
        )
    return lerp_arrays(x, end, weight)


def _lerp_tensor(xp, x, end, weight):
    if x.dtype.kind not in "fcV":
        raise NotImplementedError(
            f'"lerp_kernel_tensor" not implemented for '
            f"'{dtypes.from_numpy_dtype(x.dtype)._legacy}'"
        )
    # (a 0-d weight of another dtype is read at its own precision, as PyTorch's opmath does)
    return lerp_arrays(x, end, weight if weight.ndim == 0 else weight.astype(x.dtype, copy=False))


ADDCMUL = defop(
    "addcmul",
    _addcmul,
    {
        "x": lambda g: g,
        "t1": lambda g, t2, value: g * conjugate(t2 * value),
        "t2": lambda g, t1, value: g * conjugate(t1 * value),
    },
    promote=promotion.binary,
)
ADDCDIV = defop(
    "addcdiv",
    lambda xp, x, t1, t2, *, value: x + _value(x, value) * t1 / t2,
    {
        "x": lambda g: g,
        "t1": lambda g, t2, value: g * conjugate(value / t2),
        "t2": lambda g, t1, t2, value: -g * conjugate(value * t1 / (t2 * t2)),
    },
    promote=promotion.binary,
)
LERP = defop(
    "lerp",
    _lerp_scalar,
    {"x": lambda g, weight: g * (1 - weight), "end": lambda g, weight: g * weight},
)
LERP_TENSOR = defop(
    "lerp_tensor",
    _lerp_tensor,
    {
        "x": lambda g, weight: g * (1 - weight),
        "end": lambda g, weight: g * weight,
        "weight": lambda g, x, end: g * (end - x),
    },
    node="LerpBackward1",
)


@public
def addcmul(input, tensor1, tensor2, *, value=1):
    """Matches `torch.addcmul`: input + value * tensor1 * tensor2."""
    return apply(ADDCMUL, (input, tensor1, tensor2), {"value": value})


@public
def addcdiv(input, tensor1, tensor2, *, value=1):
    """Matches `torch.addcdiv`: input + value * tensor1 / tensor2."""
    _check_addcdiv(tensor1, tensor2)
    return apply(ADDCDIV, (input, tensor1, tensor2), {"value": value})


@public(function=False)
def addcmul_(self, tensor1, tensor2, *, value=1):
    return apply_inplace(ADDCMUL, (self, tensor1, tensor2), {"value": value}, name="addcmul_")


@public(function=False)
def addcdiv_(self, tensor1, tensor2, *, value=1):
    _check_addcdiv(tensor1, tensor2)
    return apply_inplace(ADDCDIV, (self, tensor1, tensor2), {"value": value}, name="addcdiv_")


def _check_addcdiv(tensor1, tensor2):
    if tensor1._data.dtype.kind in "biu" and tensor2._data.dtype.kind in "biu":
        raise RuntimeError(_ADDCDIV_INTEGER)


@public
def lerp(input, end, weight=REQUIRED):
    """Matches `torch.lerp`: input + weight * (end - input); input and end share a dtype."""
    return apply(*_lerp_call(input, end, weight))


@public(function=False)
def lerp_(self, end, weight):
    return apply_inplace(*_lerp_call(self, end, weight), name="lerp_")


def _lerp_call(input, end, weight):
    if not isinstance(end, Tensor) or weight is REQUIRED:
        raise TypeError(
            f"lerp() received an invalid combination of arguments - got (Tensor, "
            f"{type_name(end)}"
            + (f", {type_name(weight)}" if weight is not REQUIRED else "")
            + "), but expected one of:"
        )
    _check_same_dtype(input, end, "end")
    if isinstance(weight, Tensor):
        if weight._data.ndim:
            _check_same_dtype(input, weight, "weight")
        return LERP_TENSOR, (input, end, weight), {}
    return LERP, (input, end), {"weight": weight}


def _check_same_dtype(input, other, name):
    if other._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"expected dtype {c_type_name(input.dtype)} for `{name}` but got "
            f"dtype {c_type_name(other.dtype)}"
        )
