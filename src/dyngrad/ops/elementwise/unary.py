"""Exponentials, logarithms, trigonometric and hyperbolic functions, erf and friends."""

from __future__ import annotations

import math

from ..._tensor import Tensor
from ..arrays import erf as special
from ..table import promotion
from ..table.errors import expect_tensor
from ..table.fast import unary
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public, public_unary
from .compare import where
from .complex_numbers import conjugate

_LN2, _LN10 = math.log(2), math.log(10)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_HALF_SQRT_PI = math.sqrt(math.pi) / 2


def _acosh_grad(g, x):
    # 1 / sqrt(x^2 - 1); for complex x as 1 / (sqrt(x + 1) sqrt(x - 1)), acosh's own branch
    if x.is_complex():
        return g * conjugate((x + 1).rsqrt() * (x - 1).rsqrt())
    return g * (x * x - 1).rsqrt()


# the holomorphic rows conjugate their derivative: See Note [Complex gradients]
def _row(name, fwd, grad, node=None):
    return defop(name, fwd, {"x": grad}, node=node, promote=promotion.floating)


# ---- the table ------------------------------------------------------------------------------

EXP2 = _row("exp2", lambda xp, x: xp.exp2(x), lambda g, out: g * conjugate(out * _LN2))
EXPM1 = _row("expm1", lambda xp, x: xp.expm1(x), lambda g, out: g * conjugate(out + 1))
LOG2 = _row("log2", lambda xp, x: xp.log2(x), lambda g, x: g / conjugate(x * _LN2))
LOG10 = _row("log10", lambda xp, x: xp.log10(x), lambda g, x: g / conjugate(x * _LN10))
LOG1P = _row(
    "log1p", lambda xp, x: xp.log1p(x), lambda g, x: g / conjugate(x + 1), node="Log1PBackward0"
)
# d(x^-1/2)/dx = -1/2 x^-3/2 = -1/2 out^3
RSQRT = _row("rsqrt", lambda xp, x: 1 / xp.sqrt(x), lambda g, out: g * conjugate(-0.5 * out.pow(3)))
TAN = _row("tan", lambda xp, x: xp.tan(x), lambda g, out: g * conjugate(1 + out * out))
ASIN = _row("asin", lambda xp, x: xp.arcsin(x), lambda g, x: g * conjugate((1 - x * x).rsqrt()))
ACOS = _row("acos", lambda xp, x: xp.arccos(x), lambda g, x: g * -conjugate((1 - x * x).rsqrt()))
ATAN = _row("atan", lambda xp, x: xp.arctan(x), lambda g, x: g / conjugate(x * x + 1))
SINH = _row("sinh", lambda xp, x: xp.sinh(x), lambda g, x: g * conjugate(x.cosh()))
COSH = _row("cosh", lambda xp, x: xp.cosh(x), lambda g, x: g * conjugate(x.sinh()))
ASINH = _row("asinh", lambda xp, x: xp.arcsinh(x), lambda g, x: g * conjugate((x * x + 1).rsqrt()))
ACOSH = _row("acosh", lambda xp, x: xp.arccosh(x), _acosh_grad)
ATANH = _row("atanh", lambda xp, x: xp.arctanh(x), lambda g, x: g / conjugate(1 - x * x))
# d erf(x)/dx = 2/sqrt(pi) e^(-x^2); d erfinv(y)/dy = sqrt(pi)/2 e^(erfinv(y)^2)
ERF = _row("erf", special.erf, lambda g, x: g * (_TWO_OVER_SQRT_PI * (-x * x).exp()))
ERFC = _row("erfc", special.erfc, lambda g, x: g * (-_TWO_OVER_SQRT_PI * (-x * x).exp()))
ERFINV = _row("erfinv", special.erfinv, lambda g, out: g * (_HALF_SQRT_PI * (out * out).exp()))


def _atan2_scale(x, y):
    # 1 / (x^2 + y^2), taken as 0 at the origin where PyTorch's gradient is 0
    r2 = x * x + y * y
    return where(r2 == 0, 0.0, r2.reciprocal())


ATAN2 = defop(
    "atan2",
    lambda xp, x, y: xp.arctan2(x, y),
    {
        "x": lambda g, x, y: g * (y * _atan2_scale(x, y)),
        "y": lambda g, x, y: g * (-x * _atan2_scale(x, y)),
    },
    promote=promotion.binary_floating,
)

# ---- the public surface ----------------------------------------------------------------------


def _publish(name, op, aliases=()):
    fast = unary(op)

    def fn(input):
        expect_tensor(name, "input", 1, input)
        return fast(input)

    # torch.<name>_ exists as a function for all of these but erfinv_
    return public_unary(name, op, fn, aliases=aliases, inplace_function=name != "erfinv")


exp2 = _publish("exp2", EXP2)
expm1 = _publish("expm1", EXPM1)
log2 = _publish("log2", LOG2)
log10 = _publish("log10", LOG10)
log1p = _publish("log1p", LOG1P)
rsqrt = _publish("rsqrt", RSQRT)
tan = _publish("tan", TAN)
asin = _publish("asin", ASIN, ("arcsin",))
acos = _publish("acos", ACOS, ("arccos",))
atan = _publish("atan", ATAN, ("arctan",))
sinh = _publish("sinh", SINH)
cosh = _publish("cosh", COSH)
asinh = _publish("asinh", ASINH, ("arcsinh",))
acosh = _publish("acosh", ACOSH, ("arccosh",))
atanh = _publish("atanh", ATANH, ("arctanh",))
erf = _publish("erf", ERF)
erfc = _publish("erfc", ERFC)
erfinv = _publish("erfinv", ERFINV)


@public
def atan2(input, other):
    """Matches `torch.atan2`: the angle of (other, input), in the default float for integers."""
    expect_tensor("atan2", "other", 2, other)
    return apply(ATAN2, (input, other))


@public(function=False)
def atan2_(self, other):
    expect_tensor("atan2_", "other", 1, other)
    return apply_inplace(ATAN2, (self, other), name="atan2_")


arctan2 = public(atan2, name="arctan2")
arctan2_ = public(atan2_, name="arctan2_", function=False)


@public
def square(input):
    """Matches `torch.square`: `input ** 2` (PowBackward0); bool becomes int64 as in PyTorch."""
    if isinstance(input, Tensor) and input._data.dtype == bool:
        input = input.long()
    return input.pow(2)


@public
def square_(self):
    return self.pow_(2)
