"""Gradient flow per parameter: the table's numbers and the PNG plot."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import dyngrad as torch
import dyngrad.nn as nn
from dyngrad import doctor


def _model():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    model.add_module("unused", nn.Linear(2, 2))
    model[0](torch.randn(5, 3)).pow(2).sum().backward()
    return model


def test_rows_hold_norm_mean_max_and_zero_share():
    model = _model()
    rows = doctor.grad_flow(model.named_parameters())
    assert [r.name for r in rows] == [
        "0.weight",
        "0.bias",
        "2.weight",
        "2.bias",
        "unused.weight",
        "unused.bias",
    ]
    g = np.abs(model[0].weight.grad.numpy().astype(np.float64))
    first = rows[0]
    assert first.shape == (4, 3)
    assert first.norm == pytest.approx(np.sqrt((g * g).sum()))
    assert first.mean == pytest.approx(g.mean())
    assert first.max == pytest.approx(g.max())
    assert first.zeros == pytest.approx((g == 0).mean())
    assert rows[2].norm is None and rows[-1].mean is None


def test_frozen_parameters_are_left_out():
    model = _model()
    model[2].requires_grad_(False)
    assert [r.name for r in doctor.grad_flow(model.named_parameters())] == [
        "0.weight",
        "0.bias",
        "unused.weight",
        "unused.bias",
    ]


def test_print_grad_flow_table(capsys):
    model = _model()
    text = doctor.print_grad_flow(model.named_parameters())
    assert capsys.readouterr().out == text + "\n"
    lines = text.splitlines()
    assert lines[0].split() == ["parameter", "shape", "norm", "mean|g|", "max|g|", "zeros"]
    assert lines[3].split()[:3] == ["2.weight", "(2,", "4)"] and lines[3].endswith("no grad")
    assert len(lines) == 7


def test_plot_grad_flow_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "flow.png"
    assert doctor.plot_grad_flow(_model().named_parameters(), str(path)) == str(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_grad_flow_without_matplotlib_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install dyngrad\[plot\]"):
        doctor.plot_grad_flow(_model().named_parameters(), str(tmp_path / "x.png"))
