"""quantile, nanquantile and mode against torch: values, gradients, nodes and errors."""

from __future__ import annotations

import numpy as np
import pytest

from .oracle import exprs, same, same_grads

RNG = np.random.default_rng(0)
ENV = {
    "x": RNG.standard_normal((3, 5)),
    "b": RNG.standard_normal((2, 3, 4)),
    "v": RNG.standard_normal(6),
    "n": np.array(
        [[1.0, np.nan, 3.0, 2.0], [np.nan, np.nan, np.nan, np.nan], [4.0, 1.0, 0.0, 2.0]]
    ),
    "q": np.array([0.1, 0.5, 0.9]),
    "k": np.array([[1.0, 2, 2, 3, 3, 1], [5, 5, 4, 4, 4, 0]]),
}

GRADS = """t.quantile(x, 0.3) | t.quantile(x, 0.3, dim=1) | t.quantile(x, 0.5, 0, True)
t.quantile(b, t.tensor(q), dim=1) | t.quantile(b, t.tensor(q), dim=-1, keepdim=True)
t.quantile(v, t.tensor(q)) | t.quantile(x, 0.3, 1, interpolation='lower')
t.quantile(x, 0.3, 1, interpolation='higher') | t.quantile(x, 0.3, 1, interpolation='midpoint')
t.quantile(x, 0.375, 1, interpolation='nearest') | t.nanquantile(x, 0.4, dim=0) | x.quantile(0.2)
t.quantile(b, t.tensor(q), keepdim=True) | t.mode(x, 1) | t.mode(k) | t.mode(k, 0, True) | k.mode()"""

CHECKS = """t.quantile(n, 0.5, dim=1) | t.nanquantile(n, 0.5, dim=1) | t.nanquantile(n, t.tensor(q), 1)
t.nanquantile(n, 0.5) | t.quantile(n, 0.5) | t.quantile(x, 1.5) | t.quantile(x.float(), t.tensor(q))
t.quantile(x, 0.5, interpolation='foo') | t.quantile(t.tensor([1, 2]), 0.5) | t.quantile(x[:0], 0.5)
t.quantile(x, t.tensor([q, q])) | t.mode(t.tensor(3.0)) | t.mode(x[:, :0]) | t.mode(t.tensor([3, 1, 1, 3]))
t.quantile(t.tensor(2.0), 0.5) | t.quantile(t.tensor(2.0), 0.5, 0)"""


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_quantile_and_mode_gradients_match_torch(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(CHECKS))
def test_quantile_and_mode_checks_match_torch(torch, expr):
    same(torch, expr, **ENV)
