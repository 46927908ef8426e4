"""torch.gradient against torch: every spacing form, dims, both edge orders, integer input,
gradients (first and second order) and errors."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from .oracle import exprs, same, same_grads

RNG = np.random.default_rng(3)
ENV = {
    "x": RNG.standard_normal(6),
    "y": RNG.standard_normal((4, 5)),
    "z": RNG.standard_normal((3, 4, 5)),
    "cx": np.array([0.0, 1.0, 1.5, 3.5, 4.0, 6.0]),
    "c4": np.array([0.0, 0.5, 2.0, 2.5]),
    "c5": np.array([-1.0, 0.0, 1.0, 3.0, 4.0]),
    "ints": np.arange(12).reshape(3, 4) ** 2,
}

GRADS = """t.gradient(x) | t.gradient(x, spacing=2.0) | t.gradient(x, spacing=[0.5]) | t.gradient(x, edge_order=2)
t.gradient(x, spacing=3, edge_order=2) | t.gradient(x, spacing=(cx,)) | t.gradient(x, spacing=[cx], edge_order=2)
t.gradient(y) | t.gradient(y, dim=1) | t.gradient(y, dim=[1]) | t.gradient(y, dim=(1, 0), spacing=[2.0, 0.5])
t.gradient(y, spacing=[c4, c5]) | t.gradient(y, spacing=[c4, c5], edge_order=2) | t.gradient(z, dim=-1)
t.gradient(z, spacing=2.0, dim=(0, 2), edge_order=2) | t.gradient(y, spacing=t.tensor(2.0)) | t.gradient(y.T)"""

CHECKS = """t.gradient(y, spacing=[1.0]) | t.gradient(y, spacing=[1.0], dim=(0, 1)) | t.gradient(y, edge_order=3)
t.gradient(y, edge_order=0) | t.gradient(t.ones(2, 4), edge_order=2) | t.gradient(t.ones(1, 4))
t.gradient(y, spacing=[t.ones(3, 1), t.ones(4)]) | t.gradient(y, dim=(0, 0)) | t.gradient(y, dim=2)
t.gradient(y, spacing=(2, 3), dim=1) | t.gradient(ints) | t.gradient(ints, spacing=2)
t.gradient(ints, spacing=[t.arange(3), t.arange(4)]) | t.gradient(ints, edge_order=2)
t.gradient(t.tensor(3.0)) | t.gradient(x, spacing=[1, 2]) | t.gradient(x.to(t.uint8))
t.gradient(y.float(), spacing=[c4.float(), c5.float()]) | t.gradient(ints > 4)"""


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_gradient_matches_torch(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(CHECKS))
def test_gradient_checks_match_torch(torch, expr):
    same(torch, expr, **ENV)


def test_gradient_returns_a_tuple(lib):
    out = lib.gradient(lib.tensor([1.0, 4.0, 9.0, 16.0, 25.0]))
    assert type(out) is tuple
    assert out[0].tolist() == [3.0, 4.0, 6.0, 8.0, 9.0]


@pytest.mark.parametrize("edge_order", [1, 2])
@pytest.mark.parametrize("coordinates", [False, True])
def test_gradient_gradgradcheck(edge_order, coordinates):
    y = dyngrad.tensor(ENV["y"], requires_grad=True)
    spacing = [dyngrad.tensor(ENV["c4"]), dyngrad.tensor(ENV["c5"])] if coordinates else 0.5

    def fn(y):
        return dyngrad.gradient(y, spacing=spacing, edge_order=edge_order)

    assert dyngrad.autograd.gradcheck(fn, (y,))
    assert dyngrad.autograd.gradgradcheck(fn, (y,))
