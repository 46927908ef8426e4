"""The standard normal distribution's log CDF `log_ndtr` and quantile `ndtri`, on float64 arrays,
from `erf`'s pieces (erf.py)."""

from __future__ import annotations

import math

import numpy as np

from .erf import erfc, erfcx, erfinv

__all__ = ["log_ndtr", "ndtri"]

_SQRT1_2 = math.sqrt(0.5)
_SQRT2 = math.sqrt(2.0)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def log_ndtr(x):
    """log Phi(x): log(erfcx(-t) / 2) - t^2 below -1 (t = x / sqrt 2, no underflow), and
    log1p(-erfc(t) / 2) above (Phi near 1)."""
    t = x * _SQRT1_2
    out = np.empty_like(x)
    low = x < -1
    tl = t[low]
    out[low] = np.log(erfcx(np, -tl) / 2) - tl * tl
    high = ~low
    out[high] = np.log1p(-erfc(np, t[high]) / 2)
    return out


def ndtri(p):
    """The x with Phi(x) = p. Near the centre (1/4 <= p <= 3/4, where 2p - 1 is exact),
    sqrt 2 erfinv(2p - 1); in the tails y = erfc^-1(2p) by Newton's method on
    log erfc(y) = log(erfcx(y)) - y^2, which is nearly quadratic in y so converges from
    y0 = sqrt(-log 2p) in a few steps; p > 3/4 mirrors 1 - p (exact there)."""
    out = np.full_like(p, np.nan)
    centre = (p >= 0.25) & (p <= 0.75)
    out[centre] = _SQRT2 * erfinv(np, 2 * p[centre] - 1)
    lower = (p > 0) & (p < 0.25)
    upper = (p > 0.75) & (p < 1)
    out[lower] = -_SQRT2 * _erfc_inverse_tail(2 * p[lower])
    out[upper] = _SQRT2 * _erfc_inverse_tail(2 * (1 - p[upper]))
    out[p == 0] = -np.inf
    out[p == 1] = np.inf
    return out


def _erfc_inverse_tail(q):
    """y > 0.47 with erfc(y) = q, for 0 < q < 1/2. The start, from erfc(y) ~ e^(-y^2) /
    (y sqrt(pi)), is within a few percent; each Newton step then squares the error, and an
    element leaves the loop once its step is below its resolution."""
    target = np.log(q)
    t = -target - 0.5 * math.log(math.pi)
    y = np.sqrt(np.maximum(t - 0.5 * np.log(np.maximum(t, 1.0)), 0.25))
    todo = np.arange(q.size)
    for _ in range(50):
        yt = y[todo]
        scaled = erfcx(np, yt)
        f = np.log(scaled) - yt * yt - target[todo]
        # d/dy log erfc(y) = -2 / (sqrt(pi) erfcx(y))
        step = f * scaled / _TWO_OVER_SQRT_PI
        y[todo] = yt + step
        todo = todo[np.abs(step) > 1e-16 * yt]
        if todo.size == 0:
            break
    return y
