"""GELU: its forward and its fused backward on arrays, each with a formula, as table ops."""

from __future__ import annotations

import math

import numpy as np

from ..backend import threads
from .erf_float32 import erf_float32
from .errors import floating_only
from .inplace import apply_inplace
from .kernels import Kernel
from .registry import apply, defop
from .special import erf

_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_INV_SQRT_2 = 1 / math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_GELU_CUBIC = 0.044715


def _erf(xp, x):
    if xp is np and x.dtype == np.float32:  # see Note [Single-precision erf]
        return erf_float32(xp, x)
    return erf(xp, x)


@floating_only("GeluKernelImpl")
def _gelu(xp, x, *, approximate):
    # elementwise and costly (erf): split across threads, see Note [Intra-op threads]
    return threads.elementwise(lambda a: _gelu_of(xp, a, approximate), x)


def _gelu_of(xp, x, approximate):
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (x + _GELU_CUBIC * x * x * x)
        return 0.5 * x * (1 + xp.tanh(inner))
    cdf = _erf(xp, x * _INV_SQRT_2)
    cdf += 1
    cdf *= x
    cdf *= 0.5  # exact: x/2 (1 + erf) in place, no activation-sized temporaries
    return cdf


def _gelu_backward(xp, grad, x, *, approximate):
    """GELU's derivative times `grad`, fused on arrays: one node instead of a dozen."""
    return threads.elementwise(lambda g, a: _gelu_slope(xp, g, a, approximate), grad, x)


def _gelu_slope(xp, grad, x, approximate):
    if approximate == "tanh":
        # d/dx [x/2 (1 + tanh u)] = (1 + t)/2 + x/2 (1 - t^2) u',  u = k (x + c x^3)
        x2 = x * x
        t = xp.tanh((x + _GELU_CUBIC * x2 * x) * _SQRT_2_OVER_PI)
        du = (1 + 3 * _GELU_CUBIC * x2) * _SQRT_2_OVER_PI
        return grad * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * du)
    # d/dx [x Phi(x)] = Phi(x) + x phi(x), built in place in one buffer
    cdf = _erf(xp, x * _INV_SQRT_2)
    cdf += 1
    cdf *= 0.5
    slope = xp.multiply(x, x, out=xp.empty_like(x))  # an array even when x is 0-d
    slope *= -0.5
    xp.exp(slope, out=slope)
    slope *= _INV_SQRT_2PI
    slope *= x
    slope += cdf
    slope *= grad
    return slope


def _gelu_second(x, approximate):
    """GELU's second derivative, for double backward through the fused gelu_backward."""
    if approximate == "tanh":
        # (1 - t^2) (u' - x t u'^2 + x u''/2),  u = k (x + c x^3)
        t = ((x + _GELU_CUBIC * x * x * x) * _SQRT_2_OVER_PI).tanh()
        du = (1 + 3 * _GELU_CUBIC * x * x) * _SQRT_2_OVER_PI
        ddu = (6 * _GELU_CUBIC * _SQRT_2_OVER_PI) * x
        return (1 - t * t) * (du - x * t * du * du + 0.5 * x * ddu)
    # d/dx [Phi(x) + x phi(x)] = phi(x) (2 - x^2)
    return (-0.5 * x * x).exp() * _INV_SQRT_2PI * (2 - x * x)


def gelu_backward(grad, x, approximate):
    return apply(GELU_BACKWARD, (grad, x), {"approximate": approximate})


# ---- the table ------------------------------------------------------------------------------

GELU = defop(
    "gelu",
    _gelu,
    {"x": lambda g, x, approximate: gelu_backward(g, x, approximate)},
    kernel=Kernel(
        lambda xp, needs, g, x, approximate: (_gelu_backward(xp, g, x, approximate=approximate),)
    ),
)
GELU_BACKWARD = defop(
    "gelu_backward",
    _gelu_backward,
    {
        "grad": lambda g, x, approximate: gelu_backward(g, x, approximate),
        "x": lambda g, grad, x, approximate: g * grad * _gelu_second(x, approximate),
    },
    node="GeluBackwardBackward0",
)


# ---- the public functions (nn.functional signatures) ---------------------------------------


def gelu(input, approximate="none"):
    """Matches `torch.nn.functional.gelu`: exact (erf) or the tanh approximation."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return apply(GELU, (input,), {"approximate": approximate})


def gelu_(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return apply_inplace(GELU, (input,), {"approximate": approximate}, name="gelu_")
