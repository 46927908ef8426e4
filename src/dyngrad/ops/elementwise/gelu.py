"""GELU: its forward and its fused backward on arrays, each with a formula, as table ops."""

from __future__ import annotations

import math

import numpy as np

from ...runtime import threads
from ...runtime.dtypes import LOW_PRECISION
from ..arrays.erf import erf
from ..arrays.erf_float32 import erf_float32
from ..table.array_backward import ArrayBackward
from ..table.errors import floating_only
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop

_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_INV_SQRT_2 = 1 / math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_GELU_CUBIC = 0.044715


def _erf(xp, x, out=None):
    if xp is np and x.dtype == np.float32:  # see Note [Single-precision erf]
        return erf_float32(xp, x, out)
    if out is None:
        return erf(xp, x)
    out[...] = erf(xp, x)
    return out


@floating_only("GeluKernelImpl")
def _gelu(xp, x, *, approximate):
    # elementwise and costly (erf): split across threads, see Note [Intra-op threads]. The
    # exact form stashes its cdf for the backward (Note [Stashed intermediates]); each thread
    # writes its slice of both outputs, which are allocated once
    if x.dtype in LOW_PRECISION:
        # float16/bfloat16: in float32, rounded once (as PyTorch's kernel; ml_dtypes' own
        # bfloat16 loops are many times slower); nothing stashed, the backward recomputes
        out, _ = _gelu(xp, x.astype(np.float32), approximate=approximate)
        return out.astype(x.dtype), None
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (x + _GELU_CUBIC * x * x * x)
        return 0.5 * x * (1 + xp.tanh(inner)), None
    out, cdf = xp.empty_like(x), xp.empty_like(x)
    threads.foreach(lambda a, o, c: _gelu_into(xp, a, o, c), x, out, cdf)
    return out, cdf


def _gelu_into(xp, x, out, cdf):
    _cdf(xp, x, cdf)
    xp.multiply(x, cdf, out=out)  # x Phi(x) = x/2 (1 + erf)


def _cdf(xp, x, out=None):
    # Phi(x) = (1 + erf(x / sqrt 2)) / 2, in place in erf's buffer; halving is exact
    cdf = _erf(xp, x * _INV_SQRT_2, out)
    cdf += 1
    cdf *= 0.5
    return cdf


def _gelu_backward(xp, grad, x, *, approximate):
    """GELU's derivative times `grad`, fused on arrays: one node instead of a dozen."""
    return _gelu_backward_of(xp, grad, x, approximate, None)


def _gelu_backward_of(xp, grad, x, approximate, cdf):
    # with the forward's stashed cdf when there is one: the very array `_cdf` would give
    if x.dtype in LOW_PRECISION:  # in float32, rounded once: as the forward
        wide = _gelu_backward_of(
            xp, grad.astype(np.float32), x.astype(np.float32), approximate, None
        )
        return wide.astype(grad.dtype)
    if approximate == "tanh":
        return threads.elementwise(lambda g, a: _tanh_slope(xp, g, a), grad, x)
    slope = xp.empty_like(x)
    if cdf is None:
        threads.foreach(lambda g, a, s: _slope_into(xp, g, a, _cdf(xp, a), s), grad, x, slope)
    else:
        threads.foreach(lambda g, a, c, s: _slope_into(xp, g, a, c, s), grad, x, cdf, slope)
    return slope


def _tanh_slope(xp, grad, x):
    # d/dx [x/2 (1 + tanh u)] = (1 + t)/2 + x/2 (1 - t^2) u',  u = k (x + c x^3)
    x2 = x * x
    t = xp.tanh((x + _GELU_CUBIC * x2 * x) * _SQRT_2_OVER_PI)
    du = (1 + 3 * _GELU_CUBIC * x2) * _SQRT_2_OVER_PI
    return grad * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * du)


def _slope_into(xp, grad, x, cdf, slope):
    # d/dx [x Phi(x)] = Phi(x) + x phi(x), built in place in `slope`
    xp.multiply(x, x, out=slope)
    slope *= -0.5
    xp.exp(slope, out=slope)
    slope *= _INV_SQRT_2PI
    slope *= x
    slope += cdf
    slope *= grad


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
    array_backward=ArrayBackward(
        lambda xp, needs, g, x, approximate, stash: (
            _gelu_backward_of(xp, g, x, approximate, stash),
        )
    ),
    stash=True,
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
