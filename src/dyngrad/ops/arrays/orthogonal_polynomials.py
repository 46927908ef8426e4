"""The classical orthogonal polynomials of degree n (a tensor too): Chebyshev T, U, V, W and their
shifted forms, Hermite H and He, Laguerre L and Legendre P, on arrays.

# Note [Polynomial degrees]
# As in PyTorch, the degree is truncated to an integer (nan, inf and values beyond int64 count as
# negative) and a negative degree gives 0. Each polynomial runs its three-term recurrence in the
# input's own dtype, in PyTorch's order of operations and with its compiled loop's fused
# multiply-add (see `_fused`), so the values are PyTorch's bit for bit, overflow to inf and
# then nan included; where PyTorch switches to a closed form (cos(n acos x) inside (-1, 1)
# above a small degree, the values at +-1 and 0) so does this, within a few ulp of acos times
# n. The recurrence for an element stops at its own degree or at nan. Hermite degrees above
# 512 (float64) or 128 (float32) are nan.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "chebyshev_t",
    "chebyshev_u",
    "chebyshev_v",
    "chebyshev_w",
    "shifted_chebyshev_t",
    "shifted_chebyshev_u",
    "shifted_chebyshev_v",
    "shifted_chebyshev_w",
    "hermite_h",
    "hermite_he",
    "laguerre_l",
    "legendre_p",
]

_INT64_LIMIT = 2.0**63


def _degrees(n):
    """The truncated integer degree of each element; -1 for nan, inf and out-of-range values."""
    if n.dtype.kind in "iub":
        return n.astype(np.int64)
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(n) & (np.abs(n) < _INT64_LIMIT)
        return np.where(ok, np.trunc(np.where(ok, n, 0)), -1).astype(np.int64)


class _Case:
    """The flat output and degrees; `fill` sets the still-open elements where a mask holds."""

    def __init__(self, x, n):
        x, n = np.broadcast_arrays(x, n)
        self.shape = x.shape
        self.x = x.ravel()
        self.n = _degrees(n.ravel())
        self.dtype = self.x.dtype
        self.out = np.zeros(self.x.shape, self.dtype)
        self.open = self.n >= 0  # negative degrees are 0

    def fill(self, mask, value):
        mask = mask & self.open
        if mask.any():
            value = np.broadcast_to(np.asarray(value, self.dtype), self.x.shape)
            self.out[mask] = value[mask]
            self.open &= ~mask

    def number(self, values):
        """Integers (n + 1, 2n + 1, ...) as the dtype, as C++ converts them."""
        return values.astype(self.dtype)

    def recur(self, p, q, step):
        """Run q_k = step(k, x, p, q) for k = 2 .. n on the open elements (p, q: the first
        two polynomials of x), each element until its own degree, or until its value is nan
        (where PyTorch's loop stops too); the elements still running are kept packed."""
        idx = np.flatnonzero(self.open)
        if idx.size == 0:
            return self.finish()
        n, x = self.n[idx], self.x[idx]
        p = np.broadcast_to(np.asarray(p(x), self.dtype), x.shape).copy()
        q = np.broadcast_to(np.asarray(q(x), self.dtype), x.shape).copy()
        result = np.empty_like(q)
        where = np.arange(idx.size)
        with np.errstate(all="ignore"):
            for k in range(2, int(n.max()) + 1):
                live = (n >= k) & ~np.isnan(q)
                if not live.all():
                    result[where[~live]] = q[~live]
                    where, n, x, p, q = where[live], n[live], x[live], p[live], q[live]
                    if where.size == 0:
                        break
                p, q = q, step(k, x, p, q)
        result[where] = q
        self.out[idx] = result
        self.open[:] = False
        return self.finish()

    def finish(self):
        return self.out.reshape(self.shape)


def _rounded(fn):
    # float32: the float64 value rounded once, as C's acosf/cosf/sinf (nearly correctly rounded)
    # give; NumPy's float32 loops are a few ulp off, which n amplifies
    def call(v):
        if v.dtype == np.float32:
            return fn(v.astype(np.float64)).astype(np.float32)
        return fn(v)

    return call


_arccos, _cos, _sin = _rounded(np.arccos), _rounded(np.cos), _rounded(np.sin)


def _one(x):
    return np.ones_like(x)


def _fused(a, q, b):
    """a q - b as PyTorch's compiled loop computes it: one fused multiply-add, a q unrounded.
    float32 emulates it in float64 (a q is exact there); float64 splits a q into its rounded
    value and exact error (Dekker's product), adds b without error (Knuth's sum), and rounds
    once more at the end, which agrees with a true fused multiply-add but for rare ties."""
    if a.dtype == np.float32 or q.dtype == np.float32:
        exact = a.astype(np.float64) * q.astype(np.float64) - np.asarray(b, np.float64)
        return exact.astype(np.float32)
    product = a * q
    a_high, a_low = _split(a)
    q_high, q_low = _split(q)
    error = ((a_high * q_high - product) + a_high * q_low + a_low * q_high) + a_low * q_low
    total = product - b
    back = total - product
    sum_error = (product - (total - back)) + (-b - back)
    out = total + (sum_error + error)
    # the splits overflow past ~1e300 (and inf or nan propagate): the plain form there
    return np.where(np.isfinite(out), out, total)


def _split(v):
    # Veltkamp's split: v = high + low, each half of the significand, so products are exact
    c = v * 134217729.0  # 2^27 + 1
    high = c - (c - v)
    return high, v - high


def _chebyshev_step(k, x, p, q):
    return _fused(x + x, q, p)


def _acos(case, mask):
    with np.errstate(invalid="ignore"):
        return _arccos(np.where(mask, case.x, 0))


def chebyshev_t(x, n):
    c = _Case(x, n)
    a = np.abs(c.x)
    c.fill(a == 1, np.where((c.x > 0) | (c.n % 2 == 0), 1, -1))
    inside = (c.n > 6) & (a < 1)
    with np.errstate(invalid="ignore"):
        c.fill(inside, _cos(c.number(c.n) * _acos(c, inside)))
    c.fill(c.n == 0, 1)
    c.fill(c.n == 1, c.x)
    return c.recur(_one, lambda x: x, _chebyshev_step)


def chebyshev_u(x, n):
    c = _Case(x, n)
    a = np.abs(c.x)
    n1 = c.number(c.n + 1)
    c.fill(a == 1, np.where((c.x > 0) | (c.n % 2 == 0), n1, -n1))
    inside = (c.n > 8) & (a < 1)
    with np.errstate(all="ignore"):
        theta = _acos(c, inside)
        s = _sin(theta)
        value = np.where(s != 0, _sin(n1 * theta) / s, n1 * _cos(n1 * theta) / c.x)
    c.fill(inside, value)
    c.fill(c.n == 0, 1)
    c.fill(c.n == 1, c.x + c.x)
    return c.recur(_one, lambda x: x + x, _chebyshev_step)


def chebyshev_v(x, n):
    c = _Case(x, n)
    a = np.abs(c.x)
    odd = c.number(c.n + c.n + 1)
    alternating = np.where(c.n % 2 == 0, odd, -odd)
    c.fill((a == 1) & (c.x > 0), 1)
    c.fill(a == 1, alternating)
    inside = (c.n > 8) & (a < 1)
    with np.errstate(all="ignore"):
        theta = _acos(c, inside)
        half = theta / c.dtype.type(2)
        value = _cos((c.number(c.n) + c.dtype.type(0.5)) * theta) / _cos(half)
        value = np.where(_sin(half) != 1, value, alternating)
    c.fill(inside, value)
    c.fill(c.n == 0, 1)
    c.fill(c.n == 1, c.x + c.x - 1)
    return c.recur(_one, lambda x: x + x - 1, _chebyshev_step)


def chebyshev_w(x, n):
    c = _Case(x, n)
    a = np.abs(c.x)
    odd = c.number(c.n + c.n + 1)
    c.fill((a == 1) & (c.x > 0), odd)
    c.fill(a == 1, np.where(c.n % 2 == 0, 1, -1))
    inside = (c.n > 8) & (a < 1)
    with np.errstate(all="ignore"):
        theta = _acos(c, inside)
        half = theta / c.dtype.type(2)
        value = _sin((c.number(c.n) + c.dtype.type(0.5)) * theta) / _sin(half)
        edge = np.where(c.x > 0, odd, np.where(c.n % 2 == 0, 1, -1))
        value = np.where(_cos(half) != 1, value, edge)
    c.fill(inside, value)
    c.fill(c.n == 0, 1)
    c.fill(c.n == 1, c.x + c.x + 1)
    return c.recur(_one, lambda x: x + x + 1, _chebyshev_step)


def _shifted(x):
    return x + x - 1  # 2x - 1, as PyTorch rounds it


def _shifted_step(k, x, p, q):
    return _fused(_shifted(x) + _shifted(x), q, p)


def shifted_chebyshev_t(x, n):
    c = _Case(x, n)
    c.fill(c.x == 1, 1)
    c.fill(c.x == 0, np.where(c.n % 2 == 0, 1, -1))
    y = _shifted(c.x)
    inside = (c.n > 6) & (np.abs(y) < 1)
    with np.errstate(invalid="ignore"):
        c.fill(inside, _cos(c.number(c.n) * _arccos(np.where(inside, y, 0))))
    c.fill(c.n == 0, 1)
    c.fill(c.n == 1, y)
    return c.recur(_one, _shifted, _shifted_step)


def shifted_chebyshev_u(x, n):
    c = _Case(x, n)
    n1 = c.number(c.n + 1)
    c.fill(c.x == 1, n1)
    c.fill(c.x == 0, np.where(c.n % 2 == 0, n1, -n1))
    y = _shifted(c.x)
    inside = (c.n > 6) & (np.abs(y) < 1)
    with np.errstate(all="ignore"):
        theta = _arccos(np.where(inside, y, 0))
        s = _sin(theta)
        value = np.where(s != 0, _sin(n1 * theta) / s, n1 * _cos(n1 * theta) / y)
    c.fill(inside, value)
    c.fill(c.n == 0, 1)
    c.fill(c.n == 1, y + y)
    return c.recur(_one, lambda x: _shifted(x) + _shifted(x), _shifted_step)


def shifted_chebyshev_v(x, n):
    c = _Case(x, n)
    odd = c.number(c.n + c.n + 1)
    alternating = np.where(c.n % 2 == 0, odd, -odd)
    c.fill(c.x == 1, 1)
    c.fill(c.x == 0, alternating)
    y = _shifted(c.x)
    inside = (c.n > 6) & (np.abs(y) < 1)
    with np.errstate(all="ignore"):
        theta = _arccos(np.where(inside, y, 0))
        half = theta / c.dtype.type(2)
        value = _cos((c.number(c.n) + c.dtype.type(0.5)) * theta) / _cos(half)
        value = np.where(_sin(half) != 1, value, alternating)
    c.fill(inside, value)
    c.fill(c.n == 0, 1)
    c.fill(c.n == 1, y + y - 1)
    return c.recur(_one, lambda x: _shifted(x) + _shifted(x) - 1, _shifted_step)


def shifted_chebyshev_w(x, n):
    c = _Case(x, n)
    odd = c.number(c.n + c.n + 1)
    parity = np.where(c.n % 2 == 0, 1, -1)
    c.fill(c.x == 1, odd)
    c.fill(c.x == 0, parity)
    y = _shifted(c.x)
    inside = (c.n > 4) & (np.abs(y) < 1)
    with np.errstate(all="ignore"):
        theta = _arccos(np.where(inside, y, 0))
        half = theta / c.dtype.type(2)
        value = _sin((c.number(c.n) + c.dtype.type(0.5)) * theta) / _sin(half)
        value = np.where(_cos(half) != 1, value, parity)
    c.fill(inside, value)
    c.fill(c.n == 0, 1)
    c.fill(c.n == 1, y + y + 1)
    return c.recur(_one, lambda x: _shifted(x) + _shifted(x) + 1, _shifted_step)


def _hermite_limit(dtype):
    return 128 if dtype == np.float32 else 512


def hermite_h(x, n):
    c = _Case(x, n)
    c.fill(c.n == 0, 1)
    c.fill(c.n == 1, c.x + c.x)
    c.fill(c.n > _hermite_limit(c.dtype), np.nan)
    # r = 2x q - k p for k = 2, 4, ..., 2n - 2: n - 1 steps
    return c.recur(
        _one,
        lambda x: x + x,
        lambda k, x, p, q: _fused(x + x, q, c.dtype.type(2 * (k - 1)) * p),
    )


def hermite_he(x, n):
    c = _Case(x, n)
    c.fill(c.n == 0, 1)
    c.fill(c.n == 1, c.x)
    c.fill(c.n > _hermite_limit(c.dtype), np.nan)
    return c.recur(_one, lambda x: x, lambda k, x, p, q: _fused(x, q, c.dtype.type(k - 1) * p))


def laguerre_l(x, n):
    c = _Case(x, n)
    c.fill(c.x == 0, 1)
    c.fill(c.n == 0, 1)
    c.fill(c.n == 1, 1 - c.x)

    def step(k, x, p, q):
        j = k - 1  # PyTorch's loop index: L_(j+1) from L_j and L_(j-1)
        t = c.dtype.type
        return _fused(t(j + j) + (t(1) - x), q, t(j) * p) / t(j + 1)

    return c.recur(_one, lambda x: 1 - x, step)


def legendre_p(x, n):
    c = _Case(x, n)
    c.fill(np.abs(c.x) == 1, np.where((c.x > 0) | (c.n % 2 == 0), 1, -1))
    c.fill(c.n == 0, 1)
    c.fill(c.n == 1, c.x)

    def step(k, x, p, q):
        j = k - 1
        t = c.dtype.type
        return _fused(t(j + j + 1) * x, q, t(j) * p) / t(j + 1)

    return c.recur(_one, lambda x: x, step)
