"""In-place view ops against torch: transpose_, t_, swapdims_/swapaxes_, squeeze_, unsqueeze_
(Note [In-place view ops])."""

from __future__ import annotations

import numpy as np
import pytest

from .oracle import exprs, same, same_grads

ENV = {"m": np.arange(6.0).reshape(2, 3), "c": np.arange(6.0).reshape(1, 2, 1, 3)}

# each clones first: an in-place op on a leaf that requires grad is refused
GRADS = """m.clone().transpose_(0, 1) | m.clone().t_() | m.clone().swapdims_(1, 0)
m.clone().swapaxes_(-1, 0) | c.clone().squeeze_() | c.clone().squeeze_(0) | c.clone().squeeze_(1)
c.clone().squeeze_((0, 2)) | m.clone().unsqueeze_(-1) | m.clone()[0].unsqueeze_(0)
m.clone()[1].unsqueeze_(0).t_() | (m * 2).t_().unsqueeze_(1).squeeze_(1)"""
ERRORS = """m.clone().transpose_(0, 2) | m[None].clone().t_() | m.clone().unsqueeze_(3)
m.clone().squeeze_(5) | m.transpose_(0, 1)"""


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_inplace_view_values_and_gradients_match_torch(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(ERRORS))
def test_inplace_view_errors_match_torch(torch, expr):
    same(torch, expr, requires_grad=True, **ENV)


NAMES = [
    ("transpose_(0, 1)", "TransposeBackward1"),
    ("t_()", "TBackward1"),
    ("swapaxes_(0, 1)", "TransposeBackward1"),
    ("squeeze_()", "SqueezeBackward3"),
    ("squeeze_(0)", "SqueezeBackward4"),
    ("squeeze_((0, 1))", "SqueezeBackward5"),
    ("unsqueeze_(0)", "UnsqueezeBackward1"),
]


@pytest.mark.parametrize("call, node", NAMES)
def test_inplace_view_node_names_version_and_identity(lib, call, node):
    x = lib.ones(1, 3, requires_grad=True)
    y = x * 2
    out = eval(f"y.{call}")
    assert out is y and y.grad_fn.name() == node and y._version == 1
    assert y.grad_fn.next_functions[0][0].name() == "MulBackward0"


def test_inplace_view_on_a_view_stays_a_view_of_its_base(lib):
    base = lib.zeros(2, 3)
    row = base[1]
    row.unsqueeze_(0)
    assert row._base is base and tuple(row.shape) == (1, 3) and base._version == 1
    row.add_(5)  # writes go through to the base
    assert base.tolist() == [[0.0] * 3, [5.0] * 3]


def test_inplace_view_on_a_no_grad_view_is_refused_with_grad_on(lib):
    y = lib.ones(3, requires_grad=True).clone()
    with lib.no_grad():
        z = y[:2]
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode"):
        z.unsqueeze_(0)
