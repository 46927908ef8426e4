"""Rows only `torch.special` has: `entr`, `xlog1py` and `ndtr`, with PyTorch's nodes."""

from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor
from ..arrays import erf as special
from ..table import promotion
from ..table.record import apply
from ..table.registry import defop

_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


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


def _ndtr_fwd(xp, x):
    # Phi(x) = erfc(-x / sqrt 2) / 2: no cancellation in the lower tail
    return 0.5 * special.erfc(xp, -x * (1 / math.sqrt(2)))


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
# PyTorch composes ndtr and its last node is a multiplication by a number, MulBackward1;
# d Phi/dx = e^(-x^2 / 2) / sqrt(2 pi)
NDTR = defop(
    "special_ndtr",
    _ndtr_fwd,
    {"x": lambda g, x: g * ((x * x * -0.5).exp() * _INV_SQRT_2PI)},
    promote=promotion.floating,
    node="MulBackward1",
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
    """Matches `torch.special.ndtr`: the standard normal CDF."""
    return apply(NDTR, (input,))
