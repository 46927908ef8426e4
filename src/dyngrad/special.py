"""`torch.special`: the special functions under their SciPy-style names."""

from __future__ import annotations

from .ops.elementwise import special_bessel, special_normal, special_polynomials
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
from .ops.table.out import with_out
from .ops.table.record import apply

__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammainc",
    "gammaincc",
    "gammaln",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "sinc",
    "softmax",
    "spherical_bessel_j0",
    "xlog1py",
    "xlogy",
    "zeta",
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


# See Note [out= arguments]. PyTorch refuses out= with inputs that require grad for the rows it
# differentiates, and simply writes the result of those it does not.
i0e = with_out(special_bessel.i0e, "special_i0e")
i1e = with_out(special_bessel.i1e, "special_i1e")
erfcx = with_out(special_normal.erfcx, "special_erfcx")
log_ndtr = with_out(special_normal.log_ndtr, "special_log_ndtr")
ndtri = with_out(special_normal.ndtri, "special_ndtri")
zeta = with_out(special_normal.zeta, "special_zeta")

_UNDIFFERENTIATED = {
    **special_bessel.BESSEL_FUNCTIONS,
    **special_polynomials.POLYNOMIAL_FUNCTIONS,
}


def _undifferentiated(name):
    return with_out(_UNDIFFERENTIATED[name], "special_" + name, None)


airy_ai = _undifferentiated("airy_ai")
bessel_j0 = _undifferentiated("bessel_j0")
bessel_j1 = _undifferentiated("bessel_j1")
bessel_y0 = _undifferentiated("bessel_y0")
bessel_y1 = _undifferentiated("bessel_y1")
modified_bessel_i0 = _undifferentiated("modified_bessel_i0")
modified_bessel_i1 = _undifferentiated("modified_bessel_i1")
modified_bessel_k0 = _undifferentiated("modified_bessel_k0")
modified_bessel_k1 = _undifferentiated("modified_bessel_k1")
scaled_modified_bessel_k0 = _undifferentiated("scaled_modified_bessel_k0")
scaled_modified_bessel_k1 = _undifferentiated("scaled_modified_bessel_k1")
spherical_bessel_j0 = _undifferentiated("spherical_bessel_j0")
chebyshev_polynomial_t = _undifferentiated("chebyshev_polynomial_t")
chebyshev_polynomial_u = _undifferentiated("chebyshev_polynomial_u")
chebyshev_polynomial_v = _undifferentiated("chebyshev_polynomial_v")
chebyshev_polynomial_w = _undifferentiated("chebyshev_polynomial_w")
shifted_chebyshev_polynomial_t = _undifferentiated("shifted_chebyshev_polynomial_t")
shifted_chebyshev_polynomial_u = _undifferentiated("shifted_chebyshev_polynomial_u")
shifted_chebyshev_polynomial_v = _undifferentiated("shifted_chebyshev_polynomial_v")
shifted_chebyshev_polynomial_w = _undifferentiated("shifted_chebyshev_polynomial_w")
hermite_polynomial_h = _undifferentiated("hermite_polynomial_h")
hermite_polynomial_he = _undifferentiated("hermite_polynomial_he")
laguerre_polynomial_l = _undifferentiated("laguerre_polynomial_l")
legendre_polynomial_p = _undifferentiated("legendre_polynomial_p")
