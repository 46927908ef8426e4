"""torch.special's `erfcx`, `log_ndtr` and `ndtri` with PyTorch's nodes and formulas, and the
Hurwitz `zeta` (SpecialZetaBackward0/1/2: a derivative for `other` only, as in PyTorch)."""

from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor
from ..arrays import erf as erf_arrays
from ..arrays import normal_functions
from ..arrays import zeta as zeta_arrays
from ..table import promotion
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import special_unary
from .special import float64_forward

_SQRT_2PI = math.sqrt(2 * math.pi)
_PROMOTE_ERFCX = promotion.real_kernel("erfcx_cpu", promotion.floating)
_PROMOTE_LOG_NDTR = promotion.real_kernel("log_ndtr_cpu", promotion.floating)
_PROMOTE_NDTRI = promotion.real_kernel("ndtri_cpu", promotion.floating)
_PROMOTE_ZETA = promotion.real_kernel("zeta_cpu", promotion.binary_floating)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


ERFCX = defop(
    "special_erfcx",
    float64_forward(lambda x: erf_arrays.erfcx(np, x)),
    # d/dx e^(x^2) erfc(x) = 2x erfcx(x) - 2/sqrt(pi)
    {"x": lambda g, x, out: (2.0 * x * out - _TWO_OVER_SQRT_PI) * g},
    promote=_PROMOTE_ERFCX,
    node="SpecialErfcxBackward0",
)
LOG_NDTR = defop(
    "special_log_ndtr",
    float64_forward(normal_functions.log_ndtr),
    # d/dx log Phi(x) = phi(x) / Phi(x) = exp(-(log Phi(x) + x^2/2)) / sqrt(2 pi)
    {"x": lambda g, x, out: g / _SQRT_2PI * (out + x.pow(2) / 2).neg().exp()},
    promote=_PROMOTE_LOG_NDTR,
    node="SpecialLogNdtrBackward0",
)
NDTRI = defop(
    "special_ndtri",
    float64_forward(normal_functions.ndtri),
    # dx/dp = 1 / phi(x) = sqrt(2 pi) exp(x^2 / 2)
    {"x": lambda g, out: g * _SQRT_2PI * (out.square() / 2).exp()},
    promote=_PROMOTE_NDTRI,
    node="SpecialNdtriBackward0",
)


erfcx = special_unary("erfcx", ERFCX)
log_ndtr = special_unary("log_ndtr", LOG_NDTR)
ndtri = special_unary("ndtri", NDTRI)


# ---- zeta -----------------------------------------------------------------------------------


def _zeta_fwd(xp, x, q):
    dtype = x.dtype if isinstance(x, np.ndarray) else q.dtype
    with np.errstate(all="ignore"):
        return zeta_arrays.zeta(x, q).astype(dtype, copy=False)


def _zeta_x_grad(g):
    raise NotImplementedError("the derivative for 'zeta' is not implemented.")


def _zeta_q_grad(g, x, q):
    # d/dq sum_k (k + q)^-x = -x zeta(x + 1, q)
    return g * -x * apply(ZETA, (x + 1.0, q))


ZETA = defop(
    "special_zeta",
    _zeta_fwd,
    {"x": _zeta_x_grad, "q": _zeta_q_grad},
    promote=_PROMOTE_ZETA,
)
# a Python number as `self` (Backward1) or as `other` (Backward2): one formula less
ZETA_SCALAR_SELF = defop(
    "special_zeta_scalar_self",
    _zeta_fwd,
    {"q": _zeta_q_grad},
    promote=_PROMOTE_ZETA,
    node="SpecialZetaBackward1",
)
ZETA_SCALAR_OTHER = defop(
    "special_zeta_scalar_other",
    _zeta_fwd,
    {"x": _zeta_x_grad},
    promote=_PROMOTE_ZETA,
    node="SpecialZetaBackward2",
)


def number_pair_error(name, a, b, first, second):
    return TypeError(
        f"special_{name}() received an invalid combination of arguments - got "
        f"({type(a).__name__}, {type(b).__name__}), but expected one of:\n"
        f" * (Tensor {first}, Tensor {second}, *, Tensor out = None)\n"
        f" * (Number {'self' if first == 'input' else first}, Tensor {second}, *, "
        "Tensor out = None)\n"
        f" * (Tensor {first}, Number {second}, *, Tensor out = None)\n"
    )


def zeta(input, other):
    """Matches `torch.special.zeta`: the Hurwitz zeta function sum_k (k + other)^-input."""
    if not isinstance(input, Tensor):
        if not isinstance(other, Tensor):
            raise number_pair_error("zeta", input, other, "input", "other")
        dtype = promotion.result_type(input, other).np
        return apply(ZETA_SCALAR_SELF, (Tensor._wrap(np.asarray(input, dtype)), other))
    if not isinstance(other, Tensor):
        return apply(ZETA_SCALAR_OTHER, (input, other))
    return apply(ZETA, (input, other))
