"""The arithmetic behind PyTorch's streams: fused multiply-adds rounded once, the AVX2
float32 log/sincos, and the C library's log, checked against exact arithmetic."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dyngrad.runtime import exact_math

f32 = np.float32


def _exact(a, b, c) -> Fraction:
    return Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))


def test_fma32_rounds_once_where_float64_would_round_twice():
    # exactly: 1 + 2**-23 + 2**-24 - 2**-70, just below a float32 tie; in float64 it lands
    # on the tie, and ties-to-even would round up
    a, b, c = f32(1 - 2**-23), f32(2**-24 * (1 + 2**-23)), f32(1 + 2**-23)
    assert exact_math.fma32(np.array([a]), b, c)[0] == f32(1 + 2**-23)


def test_fma64_breaks_a_tie_by_the_rest():
    a = b = np.array([1 + 2**-52])
    assert exact_math.fma64(a, b, 2.0**-53)[0] == 1 + 3 * 2**-52
    assert a * b + 2.0**-53 != 1 + 3 * 2**-52  # the unfused form gets it wrong


def test_fused_multiply_adds_match_exact_arithmetic():
    rng = np.random.default_rng(0)
    scale = 2.0 ** rng.integers(-30, 30, size=(3, 3000))
    a, b, c = rng.standard_normal((3, 3000)) * scale
    ours64 = exact_math.fma64(a, b, c)
    ours32 = exact_math.fma32(a.astype(f32), b.astype(f32), c.astype(f32))
    for i in range(3000):
        assert ours64[i] == float(_exact(a[i], b[i], c[i]))
        exact = _exact(f32(a[i]), f32(b[i]), f32(c[i]))
        assert ours32[i] == f32(_round_to_float32(exact))


def _round_to_float32(x: Fraction) -> float:
    # float32 rounding of an exact value: round to 24 bits at its binade
    if x == 0:
        return 0.0
    e = math.floor(math.log2(abs(x)))
    while Fraction(2) ** e > abs(x):
        e -= 1
    while Fraction(2) ** (e + 1) <= abs(x):
        e += 1
    unit = Fraction(2) ** (e - 23)
    q, r = divmod(x / unit, 1)
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and q % 2):
        q += 1
    return float(q * unit)


def test_the_unchecked_fused_steps_equal_the_checked_ones():
    # the AVX2 kernels' inputs are the 2**24 uniforms k / 2**24: a spread of them, and the ends
    k = np.concatenate([np.arange(0, 2**24, 61), np.arange(2**16), np.arange(2**24 - 2**16, 2**24)])
    u = k.astype(np.uint32).astype(f32) * f32(2.0**-24)
    u1, theta = f32(1) - u, f32(2 * math.pi) * u
    fast, checked = exact_math.log_avx2(u1), exact_math.log_avx2(u1, checked=True)
    np.testing.assert_array_equal(fast.view(np.int32), checked.view(np.int32))
    for fast, checked in zip(
        exact_math.sincos_avx2(theta), exact_math.sincos_avx2(theta, checked=True)
    ):
        np.testing.assert_array_equal(fast.view(np.int32), checked.view(np.int32))


def test_avx2_log_and_sincos_are_close_to_the_true_functions():
    u = np.linspace(2**-24, 1, 100_001, dtype=f32)
    np.testing.assert_allclose(exact_math.log_avx2(u), np.log(u.astype(np.float64)), rtol=2e-7)
    sin, cos = exact_math.sincos_avx2(f32(2 * math.pi) * u)
    theta = (f32(2 * math.pi) * u).astype(np.float64)
    np.testing.assert_allclose(sin, np.sin(theta), atol=3e-7)
    np.testing.assert_allclose(cos, np.cos(theta), atol=3e-7)


def test_log64_is_the_c_librarys_log():
    rng = np.random.default_rng(1)
    x = np.concatenate(
        [
            1 - rng.integers(0, 2**53, 200_000) * 2.0**-53,  # what the normal kernel takes
            1 - np.arange(1, 3000) * 2.0**-53,  # just below 1
            0.5 + np.arange(3000) * 2.0**-53,  # around a power of two
            [1.0, 0.5, 0.25, 2.0**-53, 1 - 2.0**-7, 1 - 2.0**-8, 2.0**-1000],
        ]
    )
    expected = np.array([math.log(v) for v in x])
    np.testing.assert_array_equal(exact_math.log64(x), expected)
