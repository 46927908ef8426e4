"""Elementwise two-input math (hypot, logaddexp, logaddexp2, xlogy, fmax, fmin) and the
one-input helpers of the same kind (deg2rad, rad2deg, sinc, logit, nan_to_num, sgn,
signbit), each with PyTorch's node and derivative formula."""

from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor
from ...runtime import dtypes
from ..table import promotion
from ..table.errors import expect_tensor
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .arithmetic import _sign
from .compare import where
from .complex_numbers import conjugate, real

_DEG = math.pi / 180


def _xlogy_fwd(xp, x, y):
    # x log y, and 0 where x is 0 (unless y is nan): the entropy convention
    if type(y) is not np.ndarray:  # a Python number takes the tensor's dtype
        y = xp.asarray(y, dtype=x.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = x * xp.log(y)
    return xp.where((x == 0) & ~xp.isnan(y), xp.zeros((), out.dtype), out)


def _xlogy_x_grad(g, x, y):
    # PyTorch: xlogy(g, y), with 0 where x == 0 and y <= 0
    grad = apply(XLOGY if isinstance(y, Tensor) else XLOGY_SCALAR_OTHER, (g, y))
    below = (y <= 0) if isinstance(y, Tensor) else bool(y <= 0)
    return grad.masked_fill((x == 0) & below, 0.0) if below is not False else grad


def _xlogy_y_grad(g, x, y):
    return g * x / y


def _fmax_keeps_x(x, y):  # where the result is x: x >= y, or y is nan
    return (x >= y) | y.isnan()


def _fmin_keeps_x(x, y):
    return (x <= y) | y.isnan()


# ---- the table ------------------------------------------------------------------------------

HYPOT = defop(
    "hypot",
    lambda xp, x, y: xp.hypot(x, y),
    {"x": lambda g, x, out: g * x / out, "y": lambda g, y, out: g * y / out},
    promote=promotion.floating_kernel("hypot_cpu"),
)
LOGADDEXP = defop(
    "logaddexp",
    lambda xp, x, y: xp.logaddexp(x, y),
    {"x": lambda g, x, y: g / ((y - x).exp() + 1), "y": lambda g, x, y: g / ((x - y).exp() + 1)},
    promote=promotion.floating_kernel("logaddexp_cpu"),
)
LOGADDEXP2 = defop(
    "logaddexp2",
    lambda xp, x, y: xp.logaddexp2(x, y),
    {"x": lambda g, x, y: g / ((y - x).exp2() + 1), "y": lambda g, x, y: g / ((x - y).exp2() + 1)},
    promote=promotion.floating_kernel("logaddexp2_cpu"),
    node="Logaddexp2Backward0",
)
XLOGY = defop(
    "xlogy",
    _xlogy_fwd,
    {"x": _xlogy_x_grad, "y": _xlogy_y_grad},
    promote=promotion.binary_floating,
)
# PyTorch's Scalar overloads: a Python number as `self` (Backward1) or as `other` (Backward2)
# is no input of the node (Note [Edges are differentiable inputs])
XLOGY_SCALAR_SELF = defop(
    "xlogy_scalar_self",
    _xlogy_fwd,
    {"y": _xlogy_y_grad},
    promote=promotion.binary_floating,
    node="XlogyBackward1",
)
XLOGY_SCALAR_OTHER = defop(
    "xlogy_scalar_other",
    _xlogy_fwd,
    {"x": _xlogy_x_grad},
    promote=promotion.binary_floating,
    node="XlogyBackward2",
)
FMAX = defop(
    "fmax",
    lambda xp, x, y: xp.fmax(x, y),
    {
        "x": lambda g, x, y: g.masked_fill(~_fmax_keeps_x(x, y), 0.0),
        "y": lambda g, x, y: g.masked_fill(_fmax_keeps_x(x, y), 0.0),
    },
    promote=promotion.binary,
)
FMIN = defop(
    "fmin",
    lambda xp, x, y: xp.fmin(x, y),
    {
        "x": lambda g, x, y: g.masked_fill(~_fmin_keeps_x(x, y), 0.0),
        "y": lambda g, x, y: g.masked_fill(_fmin_keeps_x(x, y), 0.0),
    },
    promote=promotion.binary,
)

DEG2RAD = defop(
    "deg2rad",
    lambda xp, x: x * _DEG,
    {"x": lambda g: g * _DEG},
    promote=promotion.floating,
    node="Deg2RadBackward0",
)
RAD2DEG = defop(
    "rad2deg",
    lambda xp, x: x * (1 / _DEG),
    {"x": lambda g: g * (1 / _DEG)},
    promote=promotion.floating,
    node="Rad2DegBackward0",
)


def _sinc_grad(g, x):
    # (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at x = 0 as in PyTorch
    px = x * math.pi
    px2 = x * x * math.pi
    return where(px2 == 0, 0.0, g * (px * px.cos() - px.sin()) / px2)


SINC = defop("sinc", lambda xp, x: xp.sinc(x), {"x": _sinc_grad}, promote=promotion.floating)


def _logit_fwd(xp, x, *, eps):
    if eps is not None:
        x = xp.clip(x, eps, 1 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.log(x / (1 - x))


def _logit_grad(g, x, eps):
    slope = g / (x * (1 - x))
    if eps is None:  # outside [0, 1] the gradient is nan, as the value is
        return where((x < 0) | (x > 1), float("nan"), slope)
    return where((x < eps) | (x > 1 - eps), 0.0, slope)


LOGIT = defop("logit", _logit_fwd, {"x": _logit_grad}, promote=promotion.floating)


def _is_float(dtype) -> bool:
    return dtype.kind in "fcV"  # V: bfloat16, See Note [bfloat16 on demand]


def _nan_to_num_fwd(xp, x, *, nan, posinf, neginf):
    if not _is_float(x.dtype):
        return x.copy()
    if x.dtype.kind in "fc":
        return xp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)
    out = x.copy()  # bfloat16, which NumPy's nan_to_num passes through untouched
    out[xp.isnan(x)] = nan
    out[x == np.inf] = posinf
    out[x == -np.inf] = neginf
    return out


NAN_TO_NUM = defop(
    "nan_to_num", _nan_to_num_fwd, {"x": lambda g, x: g * x.isfinite()}, node="NanToNumBackward0"
)


def _sgn(xp, x):
    if x.dtype.kind != "c":
        return _sign(xp, x)  # sign's values
    size = xp.abs(x)
    return xp.where(size == 0, 0, x / xp.where(size == 0, 1, size)).astype(x.dtype, copy=False)


def _sgn_grad(g, x, out):
    if not x.is_complex():
        return g * 0.0
    # s = z / |z| has ds/dz = 1 / 2|z| and ds/d(conj z) = -s^2 / 2|z|: by Note [Complex
    # gradients] grad_z = (g - s^2 conj(g)) / 2|z| = (g - Re(conj(s) g) s) / |z|; 0 at z = 0
    return ((g - real(conjugate(out) * g) * out) / x.abs()).masked_fill(x == 0, 0.0)


SGN = defop("sgn", _sgn, {"x": _sgn_grad})


# ---- the public surface ----------------------------------------------------------------------


def _binary(name, op, inplace_method: bool = True):
    def fn(input, other):
        expect_tensor(name, "other", 2, other)
        return apply(op, (input, other))

    fn.__name__ = name
    fn.__doc__ = f"Matches `torch.{name}`."
    public(fn, name=name)
    if inplace_method:

        def fn_(self, other):
            expect_tensor(name + "_", "other", 1, other)
            return apply_inplace(op, (self, other), name=name + "_")

        public(fn_, name=name + "_", function=False)
    return fn


hypot = _binary("hypot", HYPOT)
logaddexp = _binary("logaddexp", LOGADDEXP, inplace_method=False)
logaddexp2 = _binary("logaddexp2", LOGADDEXP2, inplace_method=False)
fmax = _binary("fmax", FMAX, inplace_method=False)
fmin = _binary("fmin", FMIN, inplace_method=False)


@public
def xlogy(input, other):
    """Matches `torch.xlogy`: input * log(other), 0 where input is 0; either may be a number."""
    if not isinstance(input, Tensor):
        input = Tensor._wrap(np.asarray(input, dtype=promotion.result_type(input, other).np))
        return apply(XLOGY_SCALAR_SELF, (input, other))
    return apply(XLOGY if isinstance(other, Tensor) else XLOGY_SCALAR_OTHER, (input, other))


@public
def xlogy_(self, other):
    op = XLOGY if isinstance(other, Tensor) else XLOGY_SCALAR_OTHER
    return apply_inplace(op, (self, other), name="xlogy_")


def _unary(name, op, *, function_inplace: bool = True, method_inplace: bool = True):
    def fn(input):
        expect_tensor(name, "input", 1, input)
        return apply(op, (input,))

    def fn_(self):
        return apply_inplace(op, (self,), name=name + "_")

    fn.__name__, fn_.__name__ = name, name + "_"
    fn.__doc__ = f"Matches `torch.{name}`."
    public(fn, name=name)
    if method_inplace:
        public(fn_, name=name + "_", function=function_inplace)
    return fn


deg2rad = _unary("deg2rad", DEG2RAD)
rad2deg = _unary("rad2deg", RAD2DEG)
sinc = _unary("sinc", SINC)
sgn = _unary("sgn", SGN, function_inplace=False)


@public
def logit(input, eps=None):
    """Matches `torch.logit`: log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given."""
    return apply(LOGIT, (input,), {"eps": None if eps is None else float(eps)})


@public
def logit_(input, eps=None):
    return apply_inplace(
        LOGIT, (input,), {"eps": None if eps is None else float(eps)}, name="logit_"
    )


def _finite_bounds(input, nan, posinf, neginf) -> dict:
    dtype = input._data.dtype
    info = dtypes.finfo(dtype) if _is_float(dtype) else None
    return {
        "nan": float(nan),
        "posinf": float(info.max) if posinf is None and info is not None else posinf,
        "neginf": float(info.min) if neginf is None and info is not None else neginf,
    }


@public
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """Matches `torch.nan_to_num`: nan, +inf, -inf replaced (by 0 and the dtype's extremes)."""
    return apply(NAN_TO_NUM, (input,), _finite_bounds(input, nan, posinf, neginf))


@public
def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    return apply_inplace(
        NAN_TO_NUM, (input,), _finite_bounds(input, nan, posinf, neginf), name="nan_to_num_"
    )


@public
def signbit(input):
    """Matches `torch.signbit`: True where the sign bit is set (also for -0.0)."""
    return Tensor._wrap(np.asarray(np.signbit(input._data)))  # a 0-d input gives a 0-d array
