"""A frozen layer saves no activation for backward (seed 000)."""

from __future__ import annotations

import dyngrad
from dyngrad import nn


def _saved(node) -> dict:
    return dict(node._saved or {})


def test_frozen_linear_saves_no_input():
    layer = nn.Linear(64, 32).requires_grad_(False)
    x = dyngrad.randn(128, 64, requires_grad=True)
    out = layer(x)
    saved = _saved(out.grad_fn)
    assert out.grad_fn.name() == "AddmmBackward0"
    assert all(v is not x and v._data is not x._data for v in saved.values())
    assert set(saved) == {"mat2"}  # PyTorch's name: weight.t(), all a frozen layer keeps


def test_trainable_linear_on_constant_input_saves_only_the_input():
    layer = nn.Linear(8, 4)
    x = dyngrad.randn(16, 8)
    saved = _saved(layer(x).grad_fn)
    assert set(saved) == {"mat1"} and saved["mat1"] is x


def test_frozen_conv_saves_no_input():
    conv = nn.Conv2d(3, 4, 3).requires_grad_(False)
    x = dyngrad.randn(2, 3, 8, 8, requires_grad=True)
    assert set(_saved(conv(x).grad_fn)) == {"weight"}


def test_frozen_backbone_graph_holds_no_activation_bytes():
    backbone = nn.Sequential(nn.Linear(32, 32), nn.Linear(32, 32)).requires_grad_(False)
    head = nn.Linear(32, 2)
    x = dyngrad.randn(64, 32)
    out = head(backbone(x))
    # the backbone ran without recording (nothing required grad); only the head's node exists
    assert out.grad_fn.name() == "AddmmBackward0"
    names = [fn and fn.name() for fn, _ in out.grad_fn.next_functions]
    assert names == ["torch::autograd::AccumulateGrad", None, "TBackward0"]
    out.sum().backward()
    assert all(p.grad is None for p in backbone.parameters())
    assert head.weight.grad is not None
