"""torch.binomial: PyTorch's edge cases, shapes and dtypes, its node, errors, and draws fixed by
dyngrad's seed (the draws are not PyTorch's numbers for the same seed)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dyngrad

from .oracle import same


@pytest.mark.parametrize(
    "count,prob,expected",
    [
        (5.0, 1.5, 5.0),
        (-5.0, 0.5, 0.0),
        (2.5, 1.0, 2.5),
        (5.0, 0.0, 0.0),
        (5.0, 1.0, 5.0),
        (5.0, -0.1, 0.0),
        (0.0, 0.5, 0.0),
    ],
)
def test_binomial_edge_cases(lib, count, prob, expected):
    out = lib.binomial(lib.tensor([count] * 4), lib.tensor([prob] * 4))
    assert out.tolist() == [expected] * 4


def test_binomial_nan_probability_gives_nan(lib):
    out = lib.binomial(lib.tensor([5.0, 5.0]), lib.tensor([math.nan, math.nan]))
    assert all(math.isnan(v) for v in out.tolist())


def test_binomial_draws_are_whole_and_bounded(lib):
    count = lib.full((2000,), 10.0, dtype=lib.float64)
    out = lib.binomial(count, lib.full((2000,), 0.3, dtype=lib.float64))
    values = out.numpy()
    assert out.dtype == lib.float64
    assert (values == np.floor(values)).all() and values.min() >= 0 and values.max() <= 10
    assert abs(values.mean() - 3.0) < 0.2  # n p, within five standard errors


def test_binomial_is_fixed_by_the_seed():
    count, prob = dyngrad.full((50,), 20.0), dyngrad.full((50,), 0.5)
    dyngrad.manual_seed(7)
    first = dyngrad.binomial(count, prob)
    dyngrad.manual_seed(7)
    assert dyngrad.equal(first, dyngrad.binomial(count, prob))


def test_binomial_records_a_node_without_a_derivative(lib):
    prob = lib.full((2, 3), 0.5, requires_grad=True)
    out = lib.binomial(lib.ones(2, 3), prob)
    assert out.requires_grad and out.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="^derivative for aten::binomial is not implemented"):
        out.sum().backward()


CHECKS = """t.binomial(c.long(), p) | t.binomial(c, p.double()) | t.binomial(c, p[:2])
t.binomial(c.half(), p.half()) | t.binomial(t.ones(2, 3), t.ones(3) * 0.5).shape"""


@pytest.mark.parametrize(
    "expr", [e.strip() for line in CHECKS.splitlines() for e in line.split("|")]
)
def test_binomial_checks_match_torch(torch, expr):
    same(
        torch,
        expr,
        c=np.array([10.0, 5.0, 0.0], np.float32),
        p=np.array([0.5, 0.2, 0.9], np.float32),
    )
