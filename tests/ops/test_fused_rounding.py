"""The multiply-adds PyTorch's CPU kernels fuse (one rounding): `add`/`sub`/`rsub` with
alpha, `addcmul` and `lerp`, bit for bit with PyTorch in float32 and float64."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import dyngrad

EXPRESSIONS = [
    "t.add(A, B, alpha=0.3)",
    "A.add_(B, alpha=-0.01)",
    "t.sub(A, B, alpha=0.3)",
    "A.sub_(B, alpha=3)",
    "A.mul_(0.9).add_(B, alpha=0.1)",
    "t.rsub(A, B, alpha=0.7)",
    "t.rsub(A, 2.0, alpha=0.7)",
    "t.addcmul(A, B, C)",
    "t.addcmul(A, B, C, value=0.001)",
    "A.addcmul_(B, C, value=-2.5)",
    "t.lerp(A, B, 0.3)",
    "t.lerp(A, B, 0.8)",
    "t.lerp(A, B, C)",
    "A.lerp_(B, t.tensor(0.09999999999999998, dtype=t.float32))",
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_fused_ops_bit_for_bit(expression, dtype, torch):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(1003).astype(dtype) for _ in range(3)]

    def run(t):
        a, b, c = (t.from_numpy(x.copy()) for x in arrays)
        return eval(expression, {"t": t, "A": a, "B": b, "C": c}).numpy()

    np.testing.assert_array_equal(run(dyngrad), run(torch))


def test_add_with_alpha_rounds_once():
    a, b = np.float32(1.0), np.float32(2.0**-13 + 2.0**-25)
    alpha = 2.0**-11 + 2.0**-23  # a + alpha * b is exact in double, then rounded once
    out = dyngrad.add(dyngrad.tensor([a]), dyngrad.tensor([b]), alpha=alpha).item()
    exact = Fraction(float(a)) + Fraction(float(np.float32(alpha))) * Fraction(float(b))
    assert out == float(np.float32(float(exact)))


def test_lerp_ends_are_exact():
    start, end = dyngrad.tensor([1.5, -3.0]), dyngrad.tensor([7.25, 2.0])
    assert dyngrad.lerp(start, end, 0.0).tolist() == [1.5, -3.0]
    assert dyngrad.lerp(start, end, 1.0).tolist() == [7.25, 2.0]


def test_integer_and_complex_alpha_unchanged():
    assert dyngrad.add(dyngrad.tensor([1, 2]), dyngrad.tensor([3, 4]), alpha=2).tolist() == [7, 10]
    z = dyngrad.add(dyngrad.tensor([1 + 1j]), dyngrad.tensor([1j]), alpha=2)
    assert z.tolist() == [1 + 3j]
