"""The gamma family on arrays: `lgamma`, `digamma`, `polygamma` (via Hurwitz zeta), `mvlgamma`.

# Note [Gamma function numerics]
# All of them run in float64 and cast back, with no tables but the Bernoulli numbers:
#   lgamma(z)  = (z - 1/2) log z - z + log(2 pi)/2 + sum_k B_2k / (2k (2k-1) z^(2k-1))
#   digamma(z) = log z - 1/(2z) - sum_k B_2k / (2k z^2k)
# are Stirling's asymptotic series, exact to float64 once z >= 10; smaller arguments are
# carried there by the recurrences Gamma(z + 1) = z Gamma(z) and psi(z + 1) = psi(z) + 1/z,
# and negative ones by the reflections Gamma(x) Gamma(1 - x) = pi / sin(pi x) and
# psi(1 - x) - psi(x) = pi / tan(pi x). Polygamma of order n >= 1 is
# (-1)^(n+1) n! zeta(n + 1, x), the Hurwitz zeta function summed directly up to
# a = x + N >= 10 + n and finished by the Euler-Maclaurin formula
#   zeta(s, a) = a^(1-s) / (s - 1) + a^-s / 2 + sum_j B_2j / (2j)! (s)_(2j-1) a^(-s-2j+1).
# Near the roots of lgamma (1 and 2) and of digamma the error is absolute (a few 1e-16),
# not relative. Arrays of at most 64 elements take Python's `math.lgamma` (C's lgamma).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["lgamma", "digamma", "polygamma", "zeta", "mvlgamma"]

# B_2, B_4, ..., B_24
_BERNOULLI = (
    1 / 6,
    -1 / 30,
    1 / 42,
    -1 / 30,
    5 / 66,
    -691 / 2730,
    7 / 6,
    -3617 / 510,
    43867 / 798,
    -174611 / 330,
    854513 / 138,
    -236364091 / 2730,
)
_LGAMMA_TERMS = tuple(b / (2 * k * (2 * k - 1)) for k, b in enumerate(_BERNOULLI[:8], 1))
_DIGAMMA_TERMS = tuple(b / (2 * k) for k, b in enumerate(_BERNOULLI[:8], 1))
_ZETA_TERMS = tuple(b / math.factorial(2 * j) for j, b in enumerate(_BERNOULLI, 1))
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_ASYMPTOTIC = 10.0  # where the asymptotic series above are exact to float64
_SCALAR_PATH_SIZE = 64
_MAX_STEPS = 100_000


def _riemann_zeta(s: int) -> float:
    # zeta(s) for an integer s >= 2 in plain Python (import time): the Euler-Maclaurin sum of
    # `zeta` below with q = 1 and a = 10 + s
    a = _ASYMPTOTIC + s
    total = sum(k**-s for k in range(1, int(a)))
    lead = a ** (1 - s)
    total += lead / (s - 1) + 0.5 * lead / a
    factor = s * lead / a / a
    for j, c in enumerate(_ZETA_TERMS, 1):
        total += c * factor
        factor *= (s + 2 * j - 1) * (s + 2 * j) / a / a
    return total


def _float64(x):
    return x.astype(np.float64).ravel()


def _series(terms, w):
    # sum_k terms[k] w^(k+1) by Horner's rule
    r = terms[-1] * w
    for c in terms[-2::-1]:
        r = (r + c) * w
    return r


def _shift(xp, z, *, reciprocals: bool):
    """Carry z (all >= 0) up to >= 10; returns the new z and the product (or sum of 1/z) of the
    arguments passed on the way: log Gamma(z) = log Gamma(z + N) - log prod_k (z + k)."""
    acc = xp.zeros_like(z) if reciprocals else xp.ones_like(z)
    for _ in range(int(_ASYMPTOTIC)):
        low = z < _ASYMPTOTIC
        if not low.any():
            break
        if reciprocals:
            acc[low] += 1 / z[low]
        else:
            acc[low] *= z[low]
        z = xp.where(low, z + 1, z)
    return z, acc


def _stirling(xp, y):
    z, product = _shift(xp, y, reciprocals=False)
    log_z = xp.log(z)
    # z (log z - 1) rather than (z - 1/2) log z - z: no overflow for z near the float64 max
    stirling = (
        z * (log_z - 1) - 0.5 * log_z + _HALF_LOG_2PI + _series(_LGAMMA_TERMS, 1 / (z * z)) * z
    )
    return stirling - xp.log(product)


def _lgamma_positive(xp, y):
    # Taylor series of log Gamma(1 + t) below 2.5: exact near the roots 1 and 2, where
    # Stirling's value minus the log of the shift's product would cancel
    out = xp.empty_like(y)
    idx = xp.flatnonzero(y >= 2.5)
    out[idx] = _stirling(xp, y[idx])
    idx = xp.flatnonzero(y < 0.5)  # log Gamma(y) = log Gamma(1 + y) - log y
    t = y[idx]
    out[idx] = _series(_LGAMMA_1P_TERMS, t) - xp.log(t)
    idx = xp.flatnonzero((y >= 0.5) & (y < 1.5))
    out[idx] = _series(_LGAMMA_1P_TERMS, y[idx] - 1)
    idx = xp.flatnonzero((y >= 1.5) & (y < 2.5))  # log Gamma(2 + t) = log Gamma(1 + t) + log1p(t)
    t = y[idx] - 2
    out[idx] = _series(_LGAMMA_1P_TERMS, t) + xp.log1p(t)
    return out


def _sin_pi(xp, x):
    # sin(pi x) with x reduced first: pi * x itself rounds badly for |x| > 1
    return xp.sin(math.pi * (x - xp.round(x)))


def _lgamma_scalar(v: float) -> float:
    try:
        return math.lgamma(v)
    except (ValueError, OverflowError):  # a pole (0, -1, -2, ...) or beyond float64
        return math.inf


def lgamma(xp, x):
    """log |Gamma(x)| of a float array: inf at the poles (0, -1, -2, ...) and at -inf."""
    if xp is np and x.size <= _SCALAR_PATH_SIZE:
        flat = [_lgamma_scalar(v) for v in x.ravel().tolist()]
        return np.array(flat, np.float64).reshape(x.shape).astype(x.dtype, copy=False)
    v = _float64(x)
    out = xp.full_like(v, xp.inf)
    out[xp.isnan(v)] = xp.nan
    idx = xp.flatnonzero((v > 0) & (v < xp.inf))
    out[idx] = _lgamma_positive(xp, v[idx])
    idx = xp.flatnonzero((v <= 0) & (v > -xp.inf) & (v != xp.floor(v)))
    y = v[idx]
    out[idx] = xp.log(math.pi / xp.abs(_sin_pi(xp, y))) - _lgamma_positive(xp, 1 - y)
    return out.reshape(x.shape).astype(x.dtype, copy=False)


def _digamma_positive(xp, z):
    z, reciprocals = _shift(xp, z, reciprocals=True)
    w = 1 / (z * z)
    return xp.log(z) - 0.5 / z - _series(_DIGAMMA_TERMS, w) - reciprocals


def digamma(xp, x):
    """psi(x) = d log Gamma(x) / dx: -inf at +0, inf at -0, nan at negative integers."""
    v = _float64(x)
    out = v.copy()  # nan and inf stay
    idx = xp.flatnonzero((v > 0) & (v < xp.inf))
    out[idx] = _digamma_positive(xp, v[idx])
    zero = v == 0
    out[zero] = xp.copysign(xp.inf, -v[zero])
    idx = xp.flatnonzero(v < 0)
    y = v[idx]
    fraction = y - xp.trunc(y)  # tan(pi r) is exact where tan(pi x) is not
    with np.errstate(divide="ignore", invalid="ignore"):
        reflected = _digamma_positive(xp, 1 - y) - math.pi / xp.tan(math.pi * fraction)
    out[idx] = xp.where(fraction == 0, xp.nan, reflected)
    return out.reshape(x.shape).astype(x.dtype, copy=False)


def zeta(xp, s: int, q):
    """The Hurwitz zeta function zeta(s, q) = sum_k (q + k)^-s for an integer s >= 2."""
    start = _ASYMPTOTIC + s
    steps = xp.where(q < start, xp.ceil(start - q), 0)
    # beyond _MAX_STEPS terms (q far below 0) the direct sum is left undone: nan
    far = ~xp.isfinite(q) | (steps > _MAX_STEPS)
    steps[far] = 0
    out = xp.zeros_like(q)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        for k in range(int(steps.max(initial=0))):
            live = k < steps
            out[live] += (q[live] + k) ** -s
        a = q + steps
        lead = a ** (1 - s)  # a^(1-s) before a^-s: the latter underflows first for huge a
        tail = lead / (s - 1) + 0.5 * lead / a
        factor = s * lead / a / a
        for j, c in enumerate(_ZETA_TERMS, 1):
            tail += c * factor
            factor = factor * ((s + 2 * j - 1) * (s + 2 * j)) / a / a
        out += tail
    out[far] = xp.nan
    out[(q <= 0) & (q == xp.floor(q))] = xp.inf  # the poles
    out[q == xp.inf] = xp.nan  # as PyTorch's zeta
    return out


def polygamma(xp, x, n: int):
    """The n-th derivative of digamma: (-1)^(n+1) n! zeta(n + 1, x)."""
    if n == 0:
        return digamma(xp, x)
    v = _float64(x)
    scale = (-1.0) ** (n + 1) * math.exp(math.lgamma(n + 1))
    if n > 1:
        out = scale * zeta(xp, n + 1, v)
    else:
        out = xp.empty_like(v)
        idx = xp.flatnonzero(~(v < 0.5))
        out[idx] = zeta(xp, 2, v[idx])
        _trigamma_reflected(xp, x, v, out)
        out[v == xp.inf] = 0.0  # PyTorch's trigamma series gives 0 there
    return out.reshape(x.shape).astype(x.dtype, copy=False)


def _trigamma_reflected(xp, x, v, out) -> None:
    # PyTorch reflects trigamma below 1/2, psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x), with
    # sin(pi x) taken in the input's own precision: at negative integers it returns a huge
    # finite number (rounding leaves sin(pi x) != 0) where zeta has its pole. Do the same.
    idx = xp.flatnonzero(v < 0.5)
    if idx.size:
        sin = _float64(xp.sin(x.dtype.type(math.pi) * x.ravel()[idx]))
        with np.errstate(divide="ignore"):
            out[idx] = math.pi**2 / (sin * sin) - zeta(xp, 2, 1 - v[idx])


def mvlgamma(xp, x, p: int):
    """The multivariate log-gamma function: sum_i lgamma(x - i/2) + p (p - 1)/4 log(pi)."""
    v = x.astype(np.float64)
    out = sum(lgamma(xp, v - 0.5 * i) for i in range(p - 1, -1, -1))
    return (out + p * (p - 1) / 4 * math.log(math.pi)).astype(x.dtype, copy=False)


# log Gamma(1 + t) = -gamma t + sum_k>=2 (-1)^k zeta(k) / k t^k; 50 terms for |t| <= 1/2
_EULER_GAMMA = 0.5772156649015329
_LGAMMA_1P_TERMS = (-_EULER_GAMMA,) + tuple((-1) ** k * _riemann_zeta(k) / k for k in range(2, 51))
