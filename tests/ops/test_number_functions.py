"""gcd, lcm, heaviside, copysign, nextafter, frexp, ldexp, float_power, logcumsumexp against
torch: values, dtypes, gradients, nodes and errors."""

from __future__ import annotations

import numpy as np
import pytest

from .oracle import exprs, same, same_grads

ENV = {
    "x": np.array([-1.5, 0.0, 2.0, 3.0]),
    "y": np.array([2.0, -1.0, 0.0, -3.0]),
    "i": np.array([12, 18, -4, 0]),
    "j": np.array([8, 27, 6, 5]),
    "m": np.arange(6.0).reshape(2, 3) / 3,
}

VALUES = """t.gcd(i, j) | t.lcm(i, j) | i.gcd_(j) | t.lcm_(i, j) | t.nextafter(x, y) | t.heaviside(x, y)
x.heaviside_(y) | t.frexp(x) | t.frexp(x.float()) | t.gcd(x, y) | t.heaviside(x, i) | t.frexp(i)
t.copysign(i, j) | t.ldexp(i, j) | t.float_power(i, 2) | x.float().float_power_(2)
t.xlogy_(x.abs(), y.abs() + 1) | t.nextafter(i, j) | x.float().ldexp_(j)"""

GRADS = """t.copysign(x, y) | t.copysign(x, -1.0) | x.copysign(2) | t.ldexp(x, j) | t.ldexp(x, y)
t.ldexp(x, i) | t.float_power(x, 2) | t.float_power(x, y) | t.float_power(x.float(), 2.5)
t.logcumsumexp(m, 1) | t.logcumsumexp(m, 0) | t.logcumsumexp(m, -1) | m.logcumsumexp(0)"""


@pytest.mark.parametrize("expr", exprs(VALUES))
def test_number_function_matches_torch(torch, expr):
    same(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_number_function_gradients_match_torch(torch, expr):
    same_grads(torch, expr, **ENV)


def test_copysign_keeps_negative_zero(lib):
    out = lib.copysign(lib.tensor([1.0, 0.0]), lib.tensor([-0.0, -2.0]))
    assert np.signbit(out.numpy()).tolist() == [True, True]
