"""select/slice/diagonal_scatter, block_diag, h/v/dsplit, diagflat, cartesian_prod,
combinations and unravel_index against torch."""

from __future__ import annotations

import numpy as np
import pytest

from .oracle import exprs, same, same_grads

RNG = np.random.default_rng(0)
ENV = {
    "x": RNG.standard_normal((3, 4)),
    "b": RNG.standard_normal((2, 3, 4)),
    "v": RNG.standard_normal(4),
    "w": RNG.standard_normal(3),
    "s": RNG.standard_normal(()),
    "i": np.array([5, 7, 0]),
}

GRADS = """t.select_scatter(x, v, 0, 1) | t.select_scatter(x, w, 1, -1) | t.select_scatter(b, x[:2], 1, 2)
t.slice_scatter(x, x[:1], 0, 0, 1) | t.slice_scatter(x, x[:, ::2], 1, None, None, 2) | x.slice_scatter(x[1:], 0, 1)
t.diagonal_scatter(x, w) | t.diagonal_scatter(x, w[:2], 2) | t.diagonal_scatter(x, w[:2], -1)
t.diagonal_scatter(b, x.mT[:, :2], 0, 0, 1) | t.diagonal_scatter(b, x[:2, :3], 0, 1, 2)
t.block_diag(x, v[None], s, w) | t.block_diag(x) | t.hsplit(x, 2) | t.hsplit(x, [1, 3]) | t.hsplit(v, 2)
t.vsplit(x, 3) | t.dsplit(b, [1]) | x.hsplit(4) | t.diagflat(v) | t.diagflat(x, 1) | t.diagflat(w, -2)
t.cartesian_prod(v, w) | t.cartesian_prod(v, w, v[:2]) | t.cartesian_prod(v) | t.combinations(v)
t.combinations(v, 3) | t.combinations(w, 2, True) | t.combinations(v, 1)"""

CHECKS = """t.select_scatter(x, w, 0, 1) | t.slice_scatter(x, t.ones(3, 5)) | t.diagonal_scatter(x, v)
t.block_diag() | t.block_diag(x, b) | t.block_diag(i[:2][None], x) | t.hsplit(x, 3) | t.hsplit(s, 1)
t.vsplit(v, 1) | t.dsplit(x, 1) | t.cartesian_prod(x) | t.combinations(x) | t.combinations(v, 0)
t.unravel_index(t.tensor(i), (2, 4)) | t.unravel_index(t.tensor(3), (4,)) | t.unravel_index(t.tensor(11), (3, 2, 2))
t.unravel_index(t.tensor([1.0]), (2, 4)) | t.unravel_index(t.tensor([9]), (2, 4)) | t.select_scatter(i, i[:1], 0, 0)"""


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_structure_gradients_match_torch(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(CHECKS))
def test_structure_checks_match_torch(torch, expr):
    same(torch, expr, **ENV)
