"""Rounding and integer-style division: floor/ceil/round/trunc/frac, `//`, `%` and `fmod`."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...runtime import dtypes
from ..table import promotion
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import METHODS, public, public_unary

# ---- forwards on arrays ---------------------------------------------------------------------


def _check_operands(xp, x, y, kernel):
    # PyTorch has no bool kernels here and raises on integer division by zero; the result
    # dtype decides (bool // 2 is int64), as the promotion left a Python number unconverted
    result = xp.result_type(x, y)
    if result.kind == "b":
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    if result.kind in "iu" and (xp.asarray(y) == 0).any():
        raise RuntimeError("ZeroDivisionError")
    return result.kind in "iu"


def _floor_divide(xp, x, y):
    _check_operands(xp, x, y, "div_floor_cpu")
    with xp.errstate(divide="ignore", invalid="ignore"):  # x / 0 is inf or nan, silently
        return xp.floor_divide(x, y)


def _trunc_divide(xp, x, y):
    if _check_operands(xp, x, y, "div_trunc_cpu"):
        q = xp.floor_divide(x, y)
        # floor and trunc differ by one where the quotient is negative and inexact
        return q + ((q * y != x) & ((x < 0) != (xp.asarray(y) < 0)))
    with xp.errstate(divide="ignore", invalid="ignore"):
        return xp.trunc(x / y)


def _remainder(xp, x, y):
    if _check_operands(xp, x, y, "remainder_cpu"):
        return xp.remainder(x, y)
    if (type(y) is float or type(y) is int) and y != 0 and y - y == 0:  # `x % 2`: no warning
        return _float_remainder(xp, x, y)
    with xp.errstate(invalid="ignore", divide="ignore"):  # x % 0 is NaN, silently
        return _float_remainder(xp, x, y)


def _float_remainder(xp, x, y):
    # a zero result keeps x's sign, as PyTorch's (fmod-based) remainder does; NumPy's takes y's
    r = xp.asarray(xp.remainder(x, y))  # a 0-d input gives a NumPy scalar
    return xp.copysign(r, x, out=r, where=r == 0)


def _fmod(xp, x, y):
    _check_operands(xp, x, y, "fmod_cpu")
    with xp.errstate(invalid="ignore", divide="ignore"):
        return xp.fmod(x, y)


def _rounder(kernel, fn):
    def forward(xp, x):
        if x.dtype == bool:
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
        return x.copy() if x.dtype.kind in "iu" else fn(xp, x)

    return forward


def _round_decimals(xp, x, *, decimals):
    if x.dtype.kind in "biu":
        raise NotImplementedError(f"\"round_cpu\" not implemented for '{_legacy(x)}'")
    return xp.round(x, decimals)


def _frac(xp, x):
    if x.dtype.kind in "biu":
        raise NotImplementedError(f"\"frac_cpu\" not implemented for '{_legacy(x)}'")
    return x - xp.trunc(x)


def _legacy(x) -> str:
    return dtypes.from_numpy_dtype(x.dtype)._legacy


def _wrapped_number(value) -> Tensor:
    # a 0-d tensor of the number's own dtype promotes exactly like the number would
    return Tensor._wrap(np.asarray(value, dtypes.scalar_dtype(value, dtypes.defaults.float).np))


# ---- the table ------------------------------------------------------------------------------


def _zeros(g):
    return g.new_zeros(g.shape)


def _not_implemented(name):
    def formula(g):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")

    return formula


# PyTorch records floor_divide (and `number % tensor`) with a node that raises at backward
_UNDIFFERENTIABLE = "torch::autograd::NotImplemented"
FLOOR_DIVIDE = defop(
    "floor_divide",
    _floor_divide,
    {"x": _not_implemented("floor_divide"), "y": _not_implemented("floor_divide")},
    node=_UNDIFFERENTIABLE,
    promote=promotion.binary,
)
DIV_TRUNC = defop(
    "div_trunc",
    _trunc_divide,
    {"x": _zeros, "y": _zeros},
    node="DivBackward2",
    promote=promotion.binary,
)
DIV_FLOOR = defop(
    "div_floor",
    _floor_divide,
    {"x": _zeros, "y": _zeros},
    node="DivBackward2",
    promote=promotion.binary,
)
# d(x mod y)/dy = -floor(x / y); for fmod the quotient truncates instead
REMAINDER = defop("remainder", _remainder, {"x": lambda g: g}, promote=promotion.binary)
REMAINDER_TENSOR = defop(
    "remainder_tensor",
    _remainder,
    {"x": lambda g: g, "y": lambda g, x, y: -g * x.div(y, rounding_mode="floor")},
    node="RemainderBackward1",
    promote=promotion.binary,
)
RREMAINDER = defop(
    "rremainder",
    lambda xp, y, x: _remainder(xp, xp.asarray(x, xp.result_type(y, x)), y),
    {"y": _not_implemented("remainder")},
    node=_UNDIFFERENTIABLE,
    promote=promotion.binary,
)
FMOD = defop("fmod", _fmod, {"x": lambda g: g}, promote=promotion.binary)
FMOD_TENSOR = defop(
    "fmod_tensor",
    _fmod,
    {"x": lambda g: g, "y": lambda g, x, y: -g * x.div(y, rounding_mode="trunc")},
    node="FmodBackward1",
    promote=promotion.binary,
)

FLOOR = defop("floor", _rounder("floor_vml_cpu", lambda xp, x: xp.floor(x)), {"x": _zeros})
CEIL = defop("ceil", _rounder("ceil_vml_cpu", lambda xp, x: xp.ceil(x)), {"x": _zeros})
TRUNC = defop("trunc", _rounder("trunc_vml_cpu", lambda xp, x: xp.trunc(x)), {"x": _zeros})
# NumPy and PyTorch both round half to even
ROUND = defop("round", _rounder("round_vml_cpu", lambda xp, x: xp.rint(x)), {"x": _zeros})
ROUND_DECIMALS = defop("round_decimals", _round_decimals, {"x": _zeros}, node="RoundBackward1")
FRAC = defop("frac", _frac, {"x": lambda g: g})

# ---- the public surface ----------------------------------------------------------------------

_MODES = {"trunc": DIV_TRUNC, "floor": DIV_FLOOR}


def _rounding_op(rounding_mode):
    op = _MODES.get(rounding_mode)
    if op is None:
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' "
            f"but found '{rounding_mode}'"
        )
    return op


def divide_rounded(input, other, rounding_mode):
    """`torch.div` with `rounding_mode` 'trunc' or 'floor' (zero gradients, as PyTorch)."""
    op = _rounding_op(rounding_mode)
    if not isinstance(input, Tensor):
        input = _wrapped_number(input)
    return apply(op, (input, other))


def divide_rounded_(self, other, rounding_mode):
    """`Tensor.div_` with a rounding mode."""
    return apply_inplace(_rounding_op(rounding_mode), (self, other), name="div_")


@public
def floor_divide(input, other):
    """Matches `torch.floor_divide`: rounds toward -inf; has no derivative, like PyTorch."""
    if not isinstance(input, Tensor):
        input = _wrapped_number(input)
    return apply(FLOOR_DIVIDE, (input, other))


@public
def remainder(input, other):
    """Matches `torch.remainder`: Python's `%`, with the sign of the divisor."""
    if not isinstance(input, Tensor):
        return apply(RREMAINDER, (other, input))
    return apply(REMAINDER_TENSOR if isinstance(other, Tensor) else REMAINDER, (input, other))


@public
def fmod(input, other):
    """Matches `torch.fmod`: C's `fmod`, with the sign of the dividend."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"fmod() received an invalid combination of arguments - got "
            f"({type(input).__name__}, {type(other).__name__}), but expected one of:"
        )
    return apply(FMOD_TENSOR if isinstance(other, Tensor) else FMOD, (input, other))


@public(function=False)
def floor_divide_(self, other):
    return apply_inplace(FLOOR_DIVIDE, (self, other), name="floor_divide_")


@public(function=False)
def remainder_(self, other):
    op = REMAINDER_TENSOR if isinstance(other, Tensor) else REMAINDER
    return apply_inplace(op, (self, other), name="remainder_")


@public(function=False)
def fmod_(self, other):
    return apply_inplace(
        FMOD_TENSOR if isinstance(other, Tensor) else FMOD, (self, other), name="fmod_"
    )


def _publish(name, op):
    return public_unary(name, op, lambda input: apply(op, (input,)))


floor = _publish("floor", FLOOR)
ceil = _publish("ceil", CEIL)
trunc = _publish("trunc", TRUNC)
frac = _publish("frac", FRAC)
fix, fix_ = public(trunc, name="fix"), public(METHODS["trunc_"], name="fix_")


@public
def round(input, *, decimals=0):
    """Matches `torch.round`: half to even; `decimals` rounds to that many decimal places."""
    if decimals == 0:
        return apply(ROUND, (input,))
    return apply(ROUND_DECIMALS, (input,), {"decimals": decimals})


@public
def round_(self, *, decimals=0):
    if decimals == 0:
        return apply_inplace(ROUND, (self,), name="round_")
    return apply_inplace(ROUND_DECIMALS, (self,), {"decimals": decimals}, name="round_")


_OPERATORS = {
    "__floordiv__": lambda self, other: apply(FLOOR_DIVIDE, (self, other)),
    "__rfloordiv__": lambda self, other: floor_divide(other, self),
    "__ifloordiv__": floor_divide_,
    "__mod__": lambda self, other: remainder(self, other),
    "__rmod__": lambda self, other: apply(RREMAINDER, (self, other)),
    "__imod__": remainder_,
}
for _name, _fn in _OPERATORS.items():
    public(_fn, name=_name, function=False)
