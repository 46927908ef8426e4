"""`dyngrad.utils.summary`: rows per module call with output shapes, parameter counts and the
activation bytes each call leaves saved for backward, checked by hand."""

from __future__ import annotations

import dyngrad
from dyngrad import nn


def _mlp():
    dyngrad.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))


def test_rows_shapes_params_and_saved_bytes():
    report = dyngrad.utils.summary(_mlp(), dyngrad.randn(2, 3))
    rows = [
        (r.name, r.type, r.depth, r.output_shape, r.params, r.saved_bytes) for r in report.layers
    ]
    assert rows == [
        ("Sequential", "Sequential", 0, [2, 1], 21, 56),
        # the first Linear saves its input for its weight's gradient: 2*3 float32
        ("0", "Linear", 1, [2, 4], 16, 24),
        # ReLU saves its result, 2*4 float32
        ("1", "ReLU", 1, [2, 4], 0, 32),
        # the second Linear saves ReLU's result (counted at ReLU) and its weight (a parameter)
        ("2", "Linear", 1, [2, 1], 5, 0),
    ]
    assert (report.total_params, report.trainable_params, report.param_bytes) == (21, 21, 84)
    # graph nodes include each Linear's TBackward0 (over its weight), as in PyTorch's graph
    assert (report.activation_bytes, report.saved_bytes, report.graph_nodes) == (56, 72, 9)


def test_saved_bytes_agree_with_the_graph():
    model, x = _mlp(), dyngrad.randn(5, 3)
    report = dyngrad.utils.summary(model, x)
    out = model(x)
    assert report.saved_bytes == dyngrad.autograd.graph.saved_bytes(out)


def test_frozen_layers_and_no_grad_inputs_save_less():
    model = _mlp()
    model[0].requires_grad_(False)
    report = dyngrad.utils.summary(model, dyngrad.randn(2, 3))
    # no gradient reaches the first Linear or ReLU: they build no node; the second Linear
    # keeps ReLU's result for its weight's gradient
    assert [r.saved_bytes for r in report.layers] == [32, 0, 0, 32]
    assert (report.total_params, report.trainable_params) == (21, 5)
    text = str(report)
    assert "Trainable params: 5" in text and "Non-trainable params: 16" in text


class Twice(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = nn.Linear(4, 4)
        self.pair = nn.ModuleList([nn.Tanh(), nn.Identity()])

    def forward(self, x, scale):
        x = self.pair[0](self.block(x))
        return self.block(x) * scale, {"h": x}


def test_repeated_calls_several_inputs_and_structured_outputs():
    report = dyngrad.utils.summary(Twice(), (dyngrad.randn(3, 4), 2.0))
    rows = [(r.name, r.output_shape, r.params) for r in report.layers]
    assert rows == [
        ("Twice", [[3, 4], {"h": [3, 4]}], 20),
        ("block", [3, 4], 20),
        ("pair.0", [3, 4], 0),
        ("block", [3, 4], 0),  # the same module again: its parameters count once
    ]
    assert report.total_params == 20


def test_depth_limits_the_rows_and_the_table_reads():
    model = nn.Sequential(nn.Sequential(nn.Linear(2, 2), nn.ReLU()), nn.Linear(2, 1))
    report = dyngrad.utils.summary(model, dyngrad.ones(1, 2), depth=1)
    assert [r.name for r in report.layers] == ["Sequential", "0", "1"]
    lines = str(report).splitlines()
    assert lines[1].split() == [
        "Layer",
        "(type)",
        "Output",
        "Shape",
        "Param",
        "#",
        "Saved",
        "activations",
    ]
    # the inner Linear's input and ReLU's result, 8 bytes each
    assert lines[3].split() == ["Sequential", "[1,", "1]", "9", "16", "B"]
    assert lines[4].split() == ["0", "(Sequential)", "[1,", "2]", "6", "16", "B"]
    assert lines[-2].startswith("Saved activations: 16 B (")


def test_hooks_are_removed_and_the_model_is_unchanged():
    model = _mlp()
    before = [p.detach().clone() for p in model.parameters()]
    dyngrad.utils.summary(model, dyngrad.randn(2, 3))
    assert all(not m._forward_hooks for m in model.modules())
    assert all(dyngrad.equal(a, b) for a, b in zip(before, model.parameters()))
    assert all(p.grad is None for p in model.parameters())
