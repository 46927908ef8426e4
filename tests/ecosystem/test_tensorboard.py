"""`torch.utils.tensorboard.SummaryWriter` on dyngrad: event files TensorBoard reads back, with
the values (and histogram buckets) PyTorch's writer records."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import dyngrad

from .scripts import has, needs, run

pytestmark = needs("tensorboard")


def _read(log_dir):
    module = "tensorboard.backend.event_processing.event_accumulator"
    accumulator = importlib.import_module(module).EventAccumulator(
        str(log_dir), size_guidance={"histograms": 0, "scalars": 0}
    )
    accumulator.Reload()
    return accumulator


def _log(lib, log_dir):
    writer_module = importlib.import_module(lib.__name__ + ".utils.tensorboard")
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 1))
    with writer_module.SummaryWriter(str(log_dir)) as writer:
        for step in range(3):
            writer.add_scalar("loss", 1.0 / (step + 1), step)
        writer.add_scalar("lr", lib.tensor(0.25), 7)
        writer.add_histogram("weight", model[0].weight, 0)
        writer.add_histogram("ramp", lib.arange(10.0), 1, bins=5)
        writer.add_histogram("ramp_np", np.linspace(-1, 1, 50), 2, bins="auto")
        writer.add_text("note", "hello **world**", 0)
        writer.add_scalars("run", {"train": 1.0, "test": 2.0}, 0)
        writer.add_graph(model, lib.randn(2, 3))
    return model


def test_scalars_histograms_text_and_graph_read_back(tmp_path):
    _log(dyngrad, tmp_path)
    events = _read(tmp_path)
    assert events.Tags()["scalars"] == ["loss", "lr"]
    assert [(e.step, e.value) for e in events.Scalars("loss")] == [
        (0, 1.0),
        (1, 0.5),
        (2, pytest.approx(1 / 3)),
    ]
    assert (events.Scalars("lr")[0].step, events.Scalars("lr")[0].value) == (7, 0.25)
    ramp = events.Histograms("ramp")[0].histogram_value
    assert (ramp.min, ramp.max, ramp.num, ramp.sum, ramp.sum_squares) == (0, 9, 10, 45, 285)
    assert list(ramp.bucket_limit) == pytest.approx([0.0, 1.8, 3.6, 5.4, 7.2, 9.0])
    assert list(ramp.bucket) == [0, 2, 2, 2, 2, 2]
    assert events.Tags()["tensors"] == ["note/text_summary"]
    text = events.Tensors("note/text_summary")[0].tensor_proto.string_val[0]
    assert text == b"hello **world**"
    ops = sorted({node.op for node in events.Graph().node})
    assert ops == [
        "AddmmBackward0",
        "ReluBackward0",
        "TBackward0",
        "torch::autograd::AccumulateGrad",
    ]
    names = {node.name for node in events.Graph().node}
    assert {"0/weight", "0/bias", "2/weight", "2/bias"} <= names
    runs = sorted(p.name for p in tmp_path.iterdir() if p.is_dir())
    assert runs == ["run_test", "run_train"]
    assert _read(tmp_path / "run_train").Scalars("run")[0].value == 1.0


@pytest.mark.skipif(not has("torch"), reason="torch is not installed")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch's add_graph uses jit.trace
def test_histograms_match_torch_writer(tmp_path):
    torch = pytest.importorskip("torch")
    _log(dyngrad, tmp_path / "dyngrad")
    _log(torch, tmp_path / "torch")
    ours, theirs = _read(tmp_path / "dyngrad"), _read(tmp_path / "torch")
    for tag in ("weight", "ramp", "ramp_np"):
        a = ours.Histograms(tag)[0].histogram_value
        b = theirs.Histograms(tag)[0].histogram_value
        assert list(a.bucket) == list(b.bucket), tag
        assert list(a.bucket_limit) == pytest.approx(list(b.bucket_limit), rel=1e-6), tag
        assert (a.min, a.max, a.num) == pytest.approx((b.min, b.max, b.num), rel=1e-6)
    for tag in ("loss", "lr"):
        assert [e.value for e in ours.Scalars(tag)] == [e.value for e in theirs.Scalars(tag)]


SCRIPT = """
import sys
from torch.utils.tensorboard import SummaryWriter

writer = SummaryWriter(comment="_lr0.1")
writer.add_scalar("x", 3.0, 1)
writer.flush()
writer.close()
print(writer.get_logdir().startswith("runs/"), writer.get_logdir().endswith("_lr0.1"))
"""


def test_default_log_dir_under_runs_via_the_alias(tmp_path):
    done = run(tmp_path, SCRIPT, under="dyngrad")
    assert done.stdout == "True True\n"
    (log_dir,) = (tmp_path / "runs").iterdir()
    assert [e.value for e in _read(log_dir).Scalars("x")] == [3.0]
