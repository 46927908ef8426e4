"""The regularized incomplete gamma functions and the implicit derivatives of gamma and beta
samples w.r.t. their concentrations, on float64 arrays.

# Note [Implicit reparameterization]
# A sample x = F^-1(u; a) of a distribution with CDF F moves with its parameter a, at fixed u,
# by dx/da = -(dF/da)(x; a) / f(x; a). For the standard gamma, F = P(a, x), and
#   x < a + 1:  dx/da = sum_k t_k (psi(a + k + 1) - log x),  t_k = x^(k+1) / (a (a+1) ... (a+k))
# (the series of P differentiated term by term, over the density: every term has one sign);
#   x >= a + 1: dx/da = x C (log x - psi(a) + d log C / da),  Gamma(a, x) = e^-x x^a C(a, x)
# with C Legendre's continued fraction. For Beta(a, b), F = I_x(a, b) = x^a (1-x)^b / (a B(a, b))
# times the continued fraction K(a, b, x) (or 1 minus the mirrored one, past the mean). The
# derivative of a continued fraction comes from one evaluation at a complex parameter,
# d log C / da = Im log C(a + ih) / h (complex step: no cancellation, exact to rounding).
# PyTorch approximates the same derivatives (Taylor, saddle-point and fitted rational
# approximations, relative errors up to ~1e-3); these are exact to ~1e-13.
"""

from __future__ import annotations

import numpy as np

from .gamma_functions import digamma, lgamma

__all__ = ["igamma", "igammac", "standard_gamma_grad", "dirichlet_grad"]

_EPS = 1e-16
_TINY = 1e-300
_MAX_TERMS = 100_000
_STEP = 1e-20  # the complex step


def _lentz(xp, first, terms):
    """Evaluate b0 + a1/(b1 + a2/(b2 + ...)) by the modified Lentz method, elementwise.

    `terms(m)` gives the m-th (a, b) pair. An element is final once its factor is within a
    few ulp of 1 (it may then keep rounding to 1 +- 1 ulp, so convergence is kept per element).
    """
    value = xp.where(first == 0, _TINY, first)
    c, d = value, xp.zeros_like(value)
    done = xp.zeros(value.shape, bool)
    for m in range(1, _MAX_TERMS):
        a, b = terms(m)
        d = b + a * d
        d = xp.where(d == 0, _TINY, d)
        c = b + a / c
        c = xp.where(c == 0, _TINY, c)
        d = 1 / d
        delta = c * d
        value = xp.where(done, value, value * delta)
        done |= ~(xp.abs(delta - 1) >= 4 * _EPS)  # nan counts as done
        if done.all():
            break
    return value


def _gamma_cf(xp, a, x):
    # C(a, x) = 1/(x+1-a - 1(1-a)/(x+3-a - 2(2-a)/(x+5-a - ...))), as 1 / (b0 + ...)
    return 1 / _lentz(xp, x + 1 - a, lambda m: (-m * (m - a), x + 2 * m + 1 - a))


def _gamma_series(xp, a, x):
    # sum_k x^k / ((a+1) ... (a+k)): P(a, x) = e^-x x^a / Gamma(a + 1) times this
    term = xp.ones_like(x)
    total = term.copy()
    for k in range(1, _MAX_TERMS):
        term = term * x / (a + k)
        total += term
        if not xp.any(xp.abs(term) > _EPS * xp.abs(total)):
            break
    return total


def _prefactor(xp, a, x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.exp(a * xp.log(x) - x - lgamma(xp, a))


def _igamma_pair(xp, a, x):
    """(P(a, x), Q(a, x)) for flat float64 arrays with a > 0 and 0 < x < inf."""
    series = x < a + 1
    p, q = xp.empty_like(x), xp.empty_like(x)
    i = xp.flatnonzero(series)
    p[i] = _prefactor(xp, a[i], x[i]) * _gamma_series(xp, a[i], x[i]) / a[i]
    q[i] = 1 - p[i]
    i = xp.flatnonzero(~series)
    q[i] = _prefactor(xp, a[i], x[i]) * _gamma_cf(xp, a[i], x[i])
    p[i] = 1 - q[i]
    return p, q


def _igamma(xp, a, x, upper: bool):
    a, x = (v.astype(np.float64) for v in xp.broadcast_arrays(a, x))
    shape = a.shape
    a, x = a.ravel(), x.ravel()
    out = xp.full_like(x, xp.nan)  # a < 0, x < 0, nan and the undefined corners stay nan
    inner = xp.flatnonzero((a > 0) & (x > 0) & (a < xp.inf) & (x < xp.inf))
    out[inner] = _igamma_pair(xp, a[inner], x[inner])[1 if upper else 0]
    lower_values = (
        ((a == 0) & (x > 0), 1.0),
        ((x == 0) & (a > 0), 0.0),
        ((a == xp.inf) & (x >= 0) & (x < xp.inf), 0.0),
        ((x == xp.inf) & (a >= 0) & (a < xp.inf), 1.0),
    )
    for mask, value in lower_values:
        out[mask] = 1 - value if upper else value
    return out.reshape(shape)


def igamma(xp, a, x):
    """The regularized lower incomplete gamma function P(a, x) (`torch.special.gammainc`)."""
    return _igamma(xp, a, x, upper=False)


def igammac(xp, a, x):
    """The regularized upper incomplete gamma function Q(a, x) (`torch.special.gammaincc`)."""
    return _igamma(xp, a, x, upper=True)


def _d_log_cf(xp, cf, a, *args):
    # complex step: d log C / da = Im log C(a + ih) / h; see Note [Implicit reparameterization]
    shifted = cf(xp, a + 1j * _STEP, *args)
    return xp.angle(shifted) / _STEP


def standard_gamma_grad(xp, alpha, x):
    """dx/dalpha of a standard gamma sample x; see Note [Implicit reparameterization]."""
    shape = np.broadcast_shapes(alpha.shape, x.shape)
    a, x = (v.astype(np.float64).ravel() for v in xp.broadcast_arrays(alpha, x))
    out = xp.zeros_like(x)  # x == 0: the sample does not move
    live = (x > 0) & (a > 0)
    series = live & (x < a + 1)
    i = xp.flatnonzero(series)
    out[i] = _gamma_series_grad(xp, a[i], x[i])
    i = xp.flatnonzero(live & ~series)
    ai, xi = a[i], x[i]
    cf = _gamma_cf(xp, ai, xi)
    out[i] = xi * cf * (xp.log(xi) - digamma(xp, ai) + _d_log_cf(xp, _gamma_cf, ai, xi))
    return out.reshape(shape)


def _gamma_series_grad(xp, a, x):
    # sum_k t_k (psi(a + k + 1) - log x), t_0 = x / a, t_k = t_(k-1) x / (a + k)
    log_x = xp.log(x)
    psi = digamma(xp, a) + 1 / a
    term = x / a
    total = term * (psi - log_x)
    for k in range(1, _MAX_TERMS):
        term = term * x / (a + k)
        psi = psi + 1 / (a + k)
        step = term * (psi - log_x)
        total += step
        if not xp.any(xp.abs(step) > _EPS * xp.abs(total)):
            break
    return total


def _beta_cf(xp, a, b, x):
    # K(a, b, x) = 1/(1 + d1/(1 + d2/(1 + ...))), with d_2m+1 = -(a+m)(a+b+m)x/((a+2m)(a+2m+1))
    # and d_2m = m(b-m)x/((a+2m-1)(a+2m)): I_x(a, b) = x^a (1-x)^b / (a B(a, b)) K
    def terms(m):
        half = m // 2
        if m % 2:
            top = -(a + half) * (a + b + half) * x
            return top / ((a + 2 * half) * (a + 2 * half + 1)), xp.ones_like(top)
        top = half * (b - half) * x
        return top / ((a + 2 * half - 1) * (a + 2 * half)), xp.ones_like(top)

    return 1 / _lentz(xp, xp.ones_like(a * x), terms)


def _mirrored_beta_cf(xp, a, b, x):
    return _beta_cf(xp, b, a, 1 - x)


def dirichlet_grad(xp, x, alpha, total):
    """PyTorch's `_dirichlet_grad`: -(dI_x(a, b)/da) / f(x; a, b) / (1 - x) with b = total - a,
    the derivative of a Dirichlet sample's coordinate x w.r.t. its own concentration a."""
    shape = np.broadcast_shapes(x.shape, alpha.shape, total.shape)
    x, a, t = (v.astype(np.float64).ravel() for v in xp.broadcast_arrays(x, alpha, total))
    b = t - a
    out = xp.zeros_like(x)
    live = (x > 0) & (x < 1) & (a > 0) & (b > 0)
    low = live & (x < (a + 1) / (a + b + 2))  # where K converges fast; past it, the mirror
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = digamma(xp, a + b) - digamma(xp, a)
        i = xp.flatnonzero(low)
        ai, bi, xi = a[i], b[i], x[i]
        k = _beta_cf(xp, ai, bi, xi)
        dk = _d_log_cf(xp, _beta_cf, ai, bi, xi)
        out[i] = -xi * k / ai * (xp.log(xi) - 1 / ai + shift[i] + dk)
        i = xp.flatnonzero(live & ~low)
        ai, bi, xi = a[i], b[i], x[i]
        k = _mirrored_beta_cf(xp, ai, bi, xi)
        dk = _d_log_cf(xp, _mirrored_beta_cf, ai, bi, xi)
        out[i] = xi * k / bi * (xp.log(xi) + shift[i] + dk)
    return out.reshape(shape)
