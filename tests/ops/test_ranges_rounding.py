"""linspace and logspace round as PyTorch's kernels do: linspace fuses each point's
multiply-add (one rounding), logspace works in double without fusing and calls the C
library's pow. Compared bit for bit with PyTorch over random ends and lengths."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import dyngrad


def _ends(seed: int, kind: str):
    rng = np.random.default_rng(seed)
    for _ in range(60):
        n = int(rng.integers(1, 300))
        if kind == "int":
            yield int(rng.integers(-50, 50)), int(rng.integers(-50, 50)), n
        else:
            yield float(rng.uniform(-10, 10)), float(rng.uniform(-10, 10)), n


@pytest.mark.parametrize(
    "dtype,kind", [("float32", "float"), ("float64", "float"), ("float32", "int"),
                   ("int64", "int"), ("uint8", "int"), ("float16", "float")],
)  # fmt: skip
def test_linspace_bit_for_bit(dtype, kind, torch):
    for start, end, n in _ends(1, kind):
        if dtype == "uint8":
            start, end = abs(start), abs(end)
        ours = dyngrad.linspace(start, end, n, dtype=getattr(dyngrad, dtype)).numpy()
        theirs = torch.linspace(start, end, n, dtype=getattr(torch, dtype)).numpy()
        np.testing.assert_array_equal(ours, theirs, err_msg=f"linspace({start}, {end}, {n})")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_logspace_bit_for_bit(dtype, torch):
    for start, end, n in _ends(2, "float"):
        start, end = start / 4, end / 4
        if dtype == "int64":
            start, end = round(start), round(end)
        for base in (2.0, 10.0):
            ours = dyngrad.logspace(start, end, n, base, dtype=getattr(dyngrad, dtype))
            theirs = torch.logspace(start, end, n, base, dtype=getattr(torch, dtype))
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_linspace_points_are_rounded_once():
    # the first half is start + step * i and the second end - step * (n - 1 - i), each
    # rounded once from the exact value (the fused multiply-add of PyTorch's kernel)
    start, end, n = 0.0, 10.0, 100
    step = (end - start) / (n - 1)
    out = dyngrad.linspace(start, end, n, dtype=dyngrad.float64).tolist()
    for i, value in enumerate(out):
        exact = (
            Fraction(start) + Fraction(step) * i
            if i < n // 2
            else Fraction(end) - Fraction(step) * (n - 1 - i)
        )
        assert value == float(exact)


def test_linspace_non_finite_ends_as_torch():
    assert np.array_equal(
        dyngrad.linspace(0, float("inf"), 5).numpy(),
        np.array([np.nan, np.inf, np.nan, np.nan, np.nan], np.float32),
        equal_nan=True,
    )
    assert dyngrad.logspace(0, 400, 3).tolist() == [1.0, float("inf"), float("inf")]
