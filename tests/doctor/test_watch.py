"""`dyngrad.doctor.watch()`: findings in a program, hooks only while it runs, results
unchanged, the table and JSON forms."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import dyngrad as torch
import dyngrad.nn as nn
from dyngrad import doctor
from dyngrad._tensor import Tensor
from dyngrad.autograd.observers import observers
from dyngrad.nn.modules.module import Module
from dyngrad.ops.table import record
from dyngrad.optim import optimizer as optimizer_module


def _hooks():
    return (
        record.observer,
        optimizer_module.step_observer,
        tuple(observers.passes),
        tuple(observers.leaves),
        Tensor.detach,
        Tensor.item,
        Tensor.data,
        Module.__call__,
        nn.utils.clip_grad_norm_,
        torch.no_grad.__enter__,
        "_doctor_cut" in vars(Tensor),
    )


def _train(steps: int = 3, total=None):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        if total is not None:
            total.append(loss)
    return [p.detach().numpy().copy() for p in model.parameters()]


def test_hooks_exist_only_while_watching():
    before = _hooks()
    assert before[0] is None and before[1] is None and before[-1] is False
    with doctor.watch():
        assert record.observer is not None
        assert optimizer_module.step_observer is not None
        assert observers.passes and observers.leaves  # the engine's declared events
        assert Module.__call__ is not before[7]
    assert _hooks() == before


def test_hooks_are_removed_when_the_block_raises():
    before = _hooks()
    with pytest.raises(ZeroDivisionError), doctor.watch():
        1 / 0
    assert _hooks() == before


def test_an_inner_watch_joins_the_running_session():
    assert not doctor.watching()
    with doctor.watch() as outer:
        with doctor.watch() as inner:
            assert inner is outer
            x = torch.ones(2, requires_grad=True)
            y = (x * x).sum()
            y.backward()
        assert doctor.watching()  # the inner block's end leaves the session running
        with pytest.raises(RuntimeError):
            y.backward()
    assert not doctor.watching()
    assert outer.kinds() == ["backward-twice"]


def test_training_gives_the_same_parameters_under_the_doctor():
    plain = _train()
    with doctor.watch() as report:
        watched = _train()
    assert len(report) == 0
    for a, b in zip(plain, watched):
        np.testing.assert_array_equal(a, b)


def test_findings_name_the_users_line_not_dyngrads():
    with doctor.watch() as report:
        torch.manual_seed(0)
        w = torch.randn(3, requires_grad=True)
        opt = torch.optim.SGD([w], lr=0.1)
        for _ in range(3):
            loss = (w * 2).sum()
            loss.backward()
            opt.step()
            line = _line_of_previous_statement()
    assert [(f.kind, f.file, f.line) for f in report] == [("missing-zero-grad", __file__, line)]


def _line_of_previous_statement() -> int:
    import sys

    return sys._getframe(1).f_lineno - 1


def test_findings_are_kept_when_the_program_raises():
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        with doctor.watch() as report:
            x = torch.ones(2, requires_grad=True)
            y = (x * x).sum()
            y.backward()
            y.backward()
    assert report.kinds() == ["backward-twice"]
    assert "released its saved tensors in backward pass #" in report.findings[0].message


def test_table_and_json_forms(tmp_path):
    with doctor.watch() as report:
        _train(steps=6, total=(kept := []))
    assert report.kinds() == ["graph-growth"]
    table = report.format_table()
    assert table.splitlines()[0] == "dyngrad doctor: 1 finding"
    assert "graph-growth" in table and "hint: " in table
    path = tmp_path / "out.json"
    report.write_json(str(path))
    (item,) = json.loads(path.read_text())
    assert set(item) == {"kind", "file", "line", "message", "hint"}
    assert item["kind"] == "graph-growth" and item["file"] == __file__
    assert len(kept) == 6


def test_no_findings_table():
    assert doctor.Report().format_table() == "dyngrad doctor: no findings"


def test_kinds_are_the_issues_vocabulary():
    assert doctor.KINDS == (
        "param-no-grad",
        "graph-cut",
        "graph-growth",
        "missing-zero-grad",
        "clip-after-step",
        "eval-builds-graph",
        "train-mode-in-eval",
        "nonfinite",
        "grad-explode",
        "grad-vanish",
        "inplace-saved",
        "retain-graph-growth",
        "worker-graph",
        "backward-twice",
        "missing-set-epoch",
        "params-differ",
        "unsynced-grads",
        "double-softmax",
        "param-not-in-optimizer",
        "scheduler-misuse",
        "eval-mode-not-restored",
        "view-as-permute",
        "broadcast-loss",
        "softmax-wrong-dim",
        "amp-clip-scaled",
    )
    assert set(doctor.HINTS) == set(doctor.KINDS)


def test_a_warning_through_a_hook_still_points_at_the_users_line():
    model = nn.Linear(2, 1)
    model(torch.ones(1, 2)).sum().backward()
    with doctor.watch(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nn.utils.clip_grad_norm(model.parameters(), 1.0)
        line = _line_of_previous_statement()
    (w,) = [w for w in caught if issubclass(w.category, FutureWarning)]
    assert (w.filename, w.lineno) == (__file__, line)


def test_backward_formulas_keep_their_kernels_after_the_first_passes():
    # See Note [Observed backward passes]
    w = torch.ones(3, requires_grad=True)
    seen = []
    with doctor.watch() as report:
        for _ in range(5):
            (w * 2).exp().sum().backward()
            seen.append(record.observe_backward)
    assert seen == [True, True, False, False, False]
    assert record.observe_backward is True
    assert report.findings == []


def test_a_gradient_that_turns_non_finite_late_is_reported_at_its_backward():
    x = torch.tensor([4.0, 1.0, 9.0], requires_grad=True)
    with doctor.watch() as report:
        for step in range(6):
            shift = torch.tensor([0.0, 1.0, 0.0]) if step == 4 else torch.zeros(3)
            (x - shift).sqrt().sum().backward()  # the gradient at 0 is inf at step 4
    (finding,) = report.findings
    assert (finding.kind, finding.file) == ("nonfinite", __file__)
    assert "non-finite gradient" in finding.message
