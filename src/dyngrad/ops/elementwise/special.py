"""Rows only `torch.special` has, `entr` and `xlog1py`, with PyTorch's nodes; and `ndtr`,
composed as PyTorch composes it."""

from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor
from ...runtime import dtypes
from ..table import promotion
from ..table.record import apply
from ..table.registry import defop
from .scalar_ops import add_scalar, mul_scalar
from .unary import erf

_SQRT1_2 = math.sqrt(0.5)


def float64_forward(fn):
    """A one-input row's forward from `fn`, an array function that computes in float64 over a
    flat array: the result is reshaped and rounded to the input's dtype (the special functions
    of special_bessel and special_normal)."""

    def fwd(xp, x):
        flat = np.asarray(x, np.float64).ravel()
        with np.errstate(all="ignore"):
            out = fn(flat)
        return out.reshape(x.shape).astype(x.dtype, copy=False)

    return fwd


def _entr_fwd(xp, x):
    # -x log x, 0 at 0, -inf below (outside the domain), nan stays nan
    with np.errstate(divide="ignore", invalid="ignore"):
        out = -x * xp.log(x)
    out = xp.where(x == 0, xp.zeros((), x.dtype), out)
    return xp.where(x < 0, xp.asarray(-xp.inf, x.dtype), out)


def _xlog1py_fwd(xp, x, y):
    # x log(1 + y), and 0 where x is 0 (unless y is nan), as xlogy; a Python number takes
    # the tensor's dtype
    if type(y) is not np.ndarray:
        y = xp.asarray(y, dtype=x.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = x * xp.log1p(y)
    return xp.where((x == 0) & ~xp.isnan(y), xp.zeros((), out.dtype), out)


def _xlog1py_x_grad(g, x, y):
    # xlog1py(g, y), with 0 where x == 0 and y <= -1 (where log1p(y) is -inf or nan)
    grad = apply(XLOG1PY if isinstance(y, Tensor) else XLOG1PY_SCALAR_OTHER, (g, y))
    below = (y <= -1) if isinstance(y, Tensor) else bool(y <= -1)
    return grad.masked_fill((x == 0) & below, 0.0) if below is not False else grad


def _y_grad(g, x, y):
    return g * x / (y + 1)


# ---- the table ------------------------------------------------------------------------------

# d(-x log x)/dx = -(1 + log x)
ENTR = defop(
    "special_entr", _entr_fwd, {"x": lambda g, x: g * -(1 + x.log())}, promote=promotion.floating
)
XLOG1PY = defop(
    "special_xlog1py",
    _xlog1py_fwd,
    {"x": _xlog1py_x_grad, "y": _y_grad},
    promote=promotion.binary_floating,
    node="SpecialXlog1PyBackward0",
)
# a Python number as `self` (Backward1) or as `other` (Backward2): one formula less
XLOG1PY_SCALAR_SELF = defop(
    "special_xlog1py_scalar_self",
    _xlog1py_fwd,
    {"y": _y_grad},
    promote=promotion.binary_floating,
    node="SpecialXlog1PyBackward1",
)
XLOG1PY_SCALAR_OTHER = defop(
    "special_xlog1py_scalar_other",
    _xlog1py_fwd,
    {"x": _xlog1py_x_grad},
    promote=promotion.binary_floating,
    node="SpecialXlog1PyBackward2",
)


def entr(input):
    """Matches `torch.special.entr`: -x log x elementwise."""
    return apply(ENTR, (input,))


def xlog1py(input, other):
    """Matches `torch.special.xlog1py`: input * log1p(other), 0 where input is 0."""
    if not isinstance(input, Tensor):
        dtype = promotion.result_type(input, other).np
        return apply(XLOG1PY_SCALAR_SELF, (Tensor._wrap(np.asarray(input, dtype)), other))
    if not isinstance(other, Tensor):
        return apply(XLOG1PY_SCALAR_OTHER, (input, other))
    return apply(XLOG1PY, (input, other))


def ndtr(input):
    """Matches `torch.special.ndtr`: the standard normal CDF, composed as PyTorch's
    (1 + erf(x / sqrt 2)) * 0.5, so its graph is PyTorch's (MulBackward1 over AddBackward1
    over ErfBackward0 over MulBackward1)."""
    if not (input.is_floating_point() or input.is_complex()):
        input = input.to(dtypes.defaults.float)
    return mul_scalar(add_scalar(erf(mul_scalar(input, _SQRT1_2)), 1), 0.5)
