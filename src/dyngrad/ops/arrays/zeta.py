"""The Hurwitz zeta function zeta(x, q) = sum_k (k + q)^-x on float64 arrays.

# Note [Hurwitz zeta by Euler-Maclaurin]
# Sum the first terms directly until k + q > 9 (and at least 10 terms), then add the tail
# from the Euler-Maclaurin formula at a = q + N:
#   a^(1-x) / (x-1) - a^-x / 2 + sum_j B_2j / (2j)! x (x+1) ... (x+2j-2) a^(-x-2j+1),
# twelve Bernoulli terms, whose error is far below float64's resolution once a > 9. The domain
# is PyTorch's: x == 1 is inf, x < 1 nan; q <= 0 an integer is inf, else with x not an
# integer nan (q^-x is complex).
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial

import numpy as np

__all__ = ["zeta"]

_BERNOULLI = (  # B_2, B_4, ..., B_24
    Fraction(1, 6),
    Fraction(-1, 30),
    Fraction(1, 42),
    Fraction(-1, 30),
    Fraction(5, 66),
    Fraction(-691, 2730),
    Fraction(7, 6),
    Fraction(-3617, 510),
    Fraction(43867, 798),
    Fraction(-174611, 330),
    Fraction(854513, 138),
    Fraction(-236364091, 2730),
)
_TAIL = tuple(float(b / factorial(2 * j + 2)) for j, b in enumerate(_BERNOULLI))
_START = 9.0
_VECTOR_TERMS = 64  # elements with more direct terms (q < -55) are summed one by one


def zeta(x, q):
    """zeta(x, q) for broadcast float64 arrays x and q."""
    x, q = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(q, np.float64))
    out = np.full(x.shape, np.nan)
    with np.errstate(all="ignore"):
        q_integer = q == np.floor(q)
        x_integer = x == np.floor(x)
        inf = (x == 1) | (~(x < 1) & (q <= 0) & q_integer)
        work = (x > 1) & ~np.isnan(q) & ~((q <= 0) & (q_integer | ~x_integer))
        out[inf] = np.inf
        if work.any():
            out[work] = _euler_maclaurin(x[work], q[work])
        # x = inf: 1 at q = 1, inf below, nan above (PyTorch's tail turns 0 * inf into nan)
        at_inf = work & np.isinf(x)
        out[at_inf] = np.where(q[at_inf] == 1, 1.0, np.where(q[at_inf] < 1, np.inf, np.nan))
        out[work & np.isinf(q)] = np.nan
    return out


def _power(base, x):
    """base^-x; a negative base comes with an integer x (the domain check saw to it), taken as
    |base|^-x with x's parity for sign, as pow does, but on pow's fast path for a positive
    base (several times faster)."""
    out = np.abs(base) ** -x
    return np.where((base < 0) & (np.fmod(x, 2) == 1), -out, out)


def _euler_maclaurin(x, q):
    count = np.maximum(_START, np.floor(_START - q) + 1)  # terms before the tail: k + q > 9
    total = np.zeros_like(x)
    few = count <= _VECTOR_TERMS
    for k in range(int(count[few].max(initial=0)) + 1):
        total += np.where(few & (k <= count), _power(q + k, x), 0.0)
    for i in np.flatnonzero(~few):  # q far below 0: one element's terms at a time
        terms = q[i] + np.arange(int(count[i]) + 1)
        total[i] = np.sum(_power(terms, x[i]))
    a = q + count  # its term is in the sum: the tail's half-term comes off
    power = _power(a, x)  # a^-x, then a^(-x-2j+1) step by step
    total += power * a / (x - 1) - power / 2
    rising = x.copy()  # x (x+1) ... (x+2j-2)
    power = power / a
    for j, weight in enumerate(_TAIL):
        if j:
            rising = rising * (x + 2 * j - 1) * (x + 2 * j)
            power = power / (a * a)
        total += weight * rising * power
    return total
