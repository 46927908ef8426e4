"""`torch.special`: the special functions under their SciPy-style names."""

from __future__ import annotations

from .ops.elementwise.binary_math import logit, sinc, xlogy
from .ops.elementwise.gamma import digamma, igamma, igammac, lgamma, mvlgamma, polygamma
from .ops.elementwise.rounding import ROUND_DECIMALS
from .ops.elementwise.special import entr, ndtr, xlog1py
from .ops.elementwise.special_bessel import i0
from .ops.elementwise.special_bessel import special_i1 as i1
from .ops.elementwise.unary import erf, erfc, erfinv, exp2, expm1, log1p
from .ops.reduction.reduce_ops import logsumexp
from .ops.reduction.softmax import log_softmax as _log_softmax
from .ops.reduction.softmax import softmax as _softmax
from .ops.table.record import apply

__all__ = [
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammainc",
    "gammaincc",
    "gammaln",
    "i0",
    "i1",
    "log1p",
    "log_softmax",
    "logit",
    "logsumexp",
    "multigammaln",
    "ndtr",
    "polygamma",
    "psi",
    "round",
    "sinc",
    "softmax",
    "xlog1py",
    "xlogy",
]

gammaln = lgamma
psi = digamma
gammainc = igamma
gammaincc = igammac


def expit(input):
    """Matches `torch.special.expit`: the logistic sigmoid (SigmoidBackward0)."""
    return input.sigmoid()


def multigammaln(input, p):
    """Matches `torch.special.multigammaln`: `torch.mvlgamma`."""
    return mvlgamma(input, p)


def round(input, *, decimals=0):
    """Matches `torch.special.round`: always the `decimals` overload (RoundBackward1)."""
    return apply(ROUND_DECIMALS, (input,), {"decimals": int(decimals)})


def softmax(input, dim, *, dtype=None):
    """Matches `torch.special.softmax`."""
    return _softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """Matches `torch.special.log_softmax`."""
    return _log_softmax(input, dim, dtype=dtype)
