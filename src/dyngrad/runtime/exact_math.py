"""Floating-point arithmetic rounded as PyTorch's CPU kernels round it, for its random streams.

Fused multiply-add (the compiler fuses `x * a + b` in PyTorch's kernels), the float32 `log`
and `sincos` of PyTorch's AVX2 normal kernel, and the C library's double functions.
"""

from __future__ import annotations

import functools
import math

import numpy as np

__all__ = ["fma32", "fma64", "multiply_add", "log_avx2", "sincos_avx2", "log64", "libm"]

f32 = np.float32
f64 = np.float64
_INF = np.inf


def _two_sum(a, b):
    """s + e == a + b exactly, s the rounded sum (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a, b):
    """p + e == a * b exactly, p the rounded product (Dekker, Veltkamp's split)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _split(a):
    t = 134217729.0 * a  # 2**27 + 1
    hi = t - (t - a)
    return hi, a - hi


def _nudge(s, e, where):
    """`s` moved one step toward the sign of `e` where `where` holds."""
    if not where.any():
        return s
    return np.where(where, np.nextafter(s, np.where(e > 0, _INF, -_INF)), s)


def fma32(a, b, c) -> np.ndarray:
    """float32 fma(a, b, c), rounded once: the product is exact in float64, and the one
    double rounding that can go wrong (a float64 sum exactly halfway between two float32s) is
    moved toward the exact sum first."""
    p = np.asarray(a, f64) * np.asarray(b, f64)
    c = np.asarray(c, f64)
    s = np.asarray(p + c)
    halfway = (s.view(np.uint64) & 0x1FFFFFFF) == 0x10000000
    if not halfway.any():  # the usual case: one rounding to float64 cannot cross a tie
        return s.astype(f32)
    s, e = _two_sum(p, c)
    return _nudge(s, e, halfway & (e != 0)).astype(f32)


def fma64(a, b, c) -> np.ndarray:
    """float64 fma(a, b, c), rounded once: a * b + c as exact pieces, the small ones summed
    with rounding to odd so that the last rounding sees which side of a tie the rest lies."""
    a, b, c = (np.asarray(x, f64) for x in (a, b, c))
    p, e = _two_prod(a, b)
    s, t = _two_sum(p, c)
    u, v = _two_sum(t, e)
    r, w = _two_sum(s, u)
    q, err = _two_sum(w, v)
    q = _nudge(q, err, (err != 0) & ((q.view(np.uint64) & 1) == 0))
    out = r + q
    return np.where(np.isfinite(out), out, a * b + c)


def multiply_add(a, b, c):
    """a * b + c as PyTorch's compiled CPU kernels give it: fused, rounded once, for float32
    and float64 results (the compiler contracts `c + a * b`: `add(alpha=)`, `addcmul`, `lerp`);
    other dtypes multiply, then add. Python numbers take the arrays' dtype first, as PyTorch
    converts a scalar to the kernel's type."""
    dtype = next((v.dtype for v in (c, b, a) if isinstance(v, np.ndarray)), None)
    if dtype != f32 and dtype != f64:
        return a * b + c
    a, b, c = (v if isinstance(v, np.ndarray) else dtype.type(v) for v in (a, b, c))
    return (fma32 if dtype == f32 else fma64)(a, b, c)


# Note [The AVX2 normal kernel]
# On x86 CPUs with AVX2 PyTorch turns float32 uniforms into normals with Box-Muller in
# 8-lane SIMD, using the Cephes polynomials for log and sincos (avx_mathfun) rather than the C
# library; the compiler fused the multiply-adds of the polynomials. These are the same float32
# operations in the same order, so every value comes out bit for bit. A fused step is done in
# float64 (the product of two float32s is exact there) and rounded to float32; the double
# rounding that could go wrong never does for the 2**24 inputs these kernels can receive (the
# 24-bit uniforms): tests/runtime/test_exact_math.py checks all of them against `fma32`.

_LOG_P = [
    f32(c)
    for c in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
]
_LOG_Q1 = f32(-2.12194440e-4)
_LOG_Q2 = f32(0.693359375)
_SQRT_HALF = f32(0.707106781186547524)


class _Fused:
    """fma(y, x, c) rounded to float32 and written into y: in a float64 buffer, where the
    product of two float32s is exact (see Note [The AVX2 normal kernel]); `checked` does it
    with `fma32` instead, for the tests to compare."""

    def __init__(self, n: int, checked: bool):
        self.checked = checked
        self.buffer = None if checked else np.empty(n, f64)

    def __call__(self, y, x, c):
        if self.checked:
            return fma32(y, x, c)
        t = np.multiply(y, x, out=self.buffer, dtype=f64)
        t += c
        np.copyto(y, t, casting="unsafe")
        return y

    def start(self, a, x, c):
        """fma(a, x, c) for a number `a` (a polynomial's leading coefficient): a new array."""
        if self.checked:
            return fma32(a, x, c)
        return (x * f64(a) + c).astype(f32)


def log_avx2(x: np.ndarray, checked: bool = False) -> np.ndarray:
    """float32 natural log of `x` in [2**-126, 1], as PyTorch's AVX2 normal kernel computes it."""
    fused = _Fused(x.size, checked)
    bits = x.view(np.int32)
    m = ((bits & 0x007FFFFF) | 0x3F000000).view(f32)  # the mantissa in [0.5, 1)
    small = m < _SQRT_HALF  # then log(m) = log(2m) - log 2
    e = ((bits >> 23) - 126).astype(f32)
    e -= small
    m = (m - f32(1)) + m * small  # not np.where: a random mask mispredicts every other branch
    z = m * m
    m64 = m.astype(f64)
    y = fused.start(_LOG_P[0], m64, _LOG_P[1])
    for p in _LOG_P[2:]:
        y = fused(y, m64, p)
    y = fused(y * m, z, e * _LOG_Q1)
    y -= z * f32(0.5)
    y += m
    y += e * _LOG_Q2  # e * q2 is exact: fusing changes nothing
    return y


_FOUR_OVER_PI = f32(1.27323954473516)
_DP1, _DP2, _DP3 = f32(-0.78515625), f32(-2.4187564849853515625e-4), f32(-3.77489497744594108e-8)
_SIN_P = [f32(-1.9515295891e-4), f32(8.3321608736e-3), f32(-1.6666654611e-1)]
_COS_P = [f32(2.443315711809948e-005), f32(-1.388731625493765e-003), f32(4.166664568298827e-002)]


def sincos_avx2(x: np.ndarray, checked: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """float32 (sin x, cos x) of x >= 0, as PyTorch's AVX2 normal kernel computes them."""
    fused = _Fused(x.size, checked)
    octant = ((x * _FOUR_OVER_PI).astype(np.int32) + 1) & ~1
    y = octant.astype(f32)
    # x - y * pi/4 in three parts (Cody-Waite); y * DP1 and y * DP2 are exact
    x = fused(y, _DP3, (x + y * _DP1) + y * _DP2)
    z = x * x
    z64 = z.astype(f64)
    cos = fused(fused.start(_COS_P[0], z64, _COS_P[1]), z64, _COS_P[2])
    cos = fused(cos * z, z64, -(z * f32(0.5)))
    cos += f32(1)
    sin = fused(fused.start(_SIN_P[0], z64, _SIN_P[1]), z64, _SIN_P[2])
    sin = fused(sin * z, x, x)
    # pick each lane's polynomial and sign with bit masks, as the SIMD code does (np.where on
    # a random mask is ten times slower)
    mask = ((octant & 2) >> 1) - 1  # all ones where sin takes the sin polynomial
    from_sin = (sin.view(np.int32) & mask).view(f32)
    from_cos = (cos.view(np.int32) & ~mask).view(f32)
    sin, cos = from_cos + from_sin, (cos - from_cos) + (sin - from_sin)
    sin.view(np.int32)[...] ^= (octant & 4) << 29
    cos.view(np.int32)[...] ^= (~(octant - 2) & 4) << 29
    return sin, cos


def libm(fn, x: np.ndarray) -> np.ndarray:
    """`fn` (a `math` function: the C library's) on each element of a float64 array.

    PyTorch's double kernels call the C library; NumPy's own vectorised log, log1p and exp
    round differently in a fraction of a percent of cases, so these go element by element
    (about 30 ns each, in C: `map` over a list)."""
    flat = np.fromiter(map(fn, x.ravel().tolist()), f64, count=x.size)
    return flat.reshape(x.shape)


# Note [The C library's log, vectorised]
# PyTorch's float64 normal kernel calls the C library's log, which glibc rounds correctly
# except within 0.02 ulp of a tie (its error bound is 0.519 ulp); NumPy's log rounds
# differently in about 0.4% of cases. `log64` computes log in double-double (a 128-entry
# table of log c and a short series for log1p of the rest, about 2**-59 relative error),
# which decides the rounding everywhere except near a tie, and calls the C library there
# (about 6% of the values).


_FIXED = 160  # bits after the point of the table's integer logs


def _fixed_log(c: float) -> int:
    """log(c) * 2**160 for c in [1, 2], to a few units: 2 atanh((c - 1) / (c + 1)) summed
    in integers."""
    num, den = c.as_integer_ratio()
    t = ((num - den) << _FIXED) // (num + den)
    t2 = (t * t) >> _FIXED
    total, term, k = 0, t, 1
    while term:
        total += term // k
        term = (term * t2) >> _FIXED
        k += 2
    return 2 * total


def _hi_lo(fixed: int) -> tuple[float, float]:
    """A fixed-point value as double hi + lo (integer division rounds correctly)."""
    hi = fixed / 2**_FIXED
    return hi, (fixed - int(hi * 2.0**_FIXED)) / 2**_FIXED


@functools.cache
def _log_table():
    """For mantissas m in [0.5 + j/256, 0.5 + (j+1)/256): c_j ~ 1/m with 20 bits (so m * c_j
    splits exactly), and log(c_j) as hi + lo; the ends are c = 2 and c = 1 exactly, so that
    1 gives 0 and values just below 1 lose nothing to cancellation. Also log 2 as hi + lo,
    hi short enough (32 bits) that k * hi is exact."""
    ln2 = _fixed_log(2.0)
    ln2_top = (ln2 + (1 << (_FIXED - 33))) >> (_FIXED - 32)
    ln2_hi, ln2_lo = ln2_top / 2**32, (ln2 - (ln2_top << (_FIXED - 32))) / 2**_FIXED
    inverse = [math.ldexp(round(2**27 / (j + 128.5)), -19) for j in range(128)]
    inverse[0], inverse[-1] = 2.0, 1.0
    hi, lo = zip(*(_hi_lo(_fixed_log(c)) for c in inverse))
    hi, lo = list(hi), list(lo)
    hi[0], lo[0] = ln2_hi, ln2_lo  # exactly cancels k * log 2 at 1
    return np.array(inverse), np.array(hi), np.array(lo), ln2_hi, ln2_lo


# log1p(r) = r + r**2 * (-1/2 + r/3 - r**2/4 + ...), to r**6: enough for |r| <= 2**-7
_LOG1P_TAIL = [(-1.0) ** (n + 1) / n for n in range(8, 1, -1)]


def log64(x: np.ndarray) -> np.ndarray:
    """The C library's (glibc's) log of doubles in [2**-1022, 1], vectorised.

    See Note [The C library's log, vectorised]."""
    inverse, hi, lo, ln2_hi, ln2_lo = _log_table()
    m, k = np.frexp(x)  # x = m * 2**k, m in [0.5, 1)
    j = (x.view(np.int64) >> 45) & 127  # m's top 7 fraction bits
    c = np.take(inverse, j)
    t = 134217729.0 * m  # m * c = p + r_lo exactly: m split in halves, c has 20 bits
    m_hi = t - (t - m)
    p = m * c
    r_lo = (m_hi * c - p) + (m - m_hi) * c
    r_hi = p - 1  # exact (Sterbenz)
    tail = np.full_like(r_hi, _LOG1P_TAIL[0])
    for coefficient in _LOG1P_TAIL[1:]:
        tail *= r_hi
        tail += coefficient
    # log x = k log 2 - log c + log1p(r), summed largest first (each |sum| >= |next term|)
    a = k * ln2_hi
    h = np.take(hi, j)
    s1 = a - h
    e1 = (a - s1) - h
    s2 = s1 + r_hi
    e2 = r_hi - (s2 - s1)
    tail *= r_hi * r_hi
    tail += r_lo - r_hi * r_lo
    tail += k * ln2_lo - np.take(lo, j)
    low = (e1 + e2) + tail
    y = s2 + low
    off = (s2 - y) + low  # where the exact log lies from y
    bits = y.view(np.int64)
    ulp = (bits & 0x7FF0000000000000).view(f64) * 2.0**-52  # y's spacing above
    near_tie = np.abs(off) > 0.47 * ulp
    near_tie |= (bits & 0x000FFFFFFFFFFFFF) == 0  # a power of two: half the spacing below
    if near_tie.any():
        y[near_tie] = libm(math.log, x[near_tie])
    return y
