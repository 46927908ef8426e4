"""torch.profiler on dyngrad: the events a training step records (names and counts as
PyTorch's), the table's layout, schedules, Chrome traces, ranges, and that profiling changes
no value or gradient."""

from __future__ import annotations

import glob
import json
import re
import warnings

import pytest

import dyngrad
from dyngrad.autograd import profiler as autograd_profiler
from dyngrad.profiler import legacy as profiler_legacy

# ops both libraries record by the same aten name for the program below (PyTorch records
# more: the ATen ops its kernels call inside these, such as aten::empty or aten::as_strided)
SHARED_OPS = {
    "aten::addmm",
    "aten::relu",
    "aten::log_softmax",
    "aten::nll_loss",
    "aten::mm",
    "aten::threshold_backward",
    "aten::_log_softmax_backward_data",
    "aten::select",
    "aten::random_",
}
RANGES = {
    "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
    "Optimizer.step#Adam.step",
    "Optimizer.zero_grad#Adam.zero_grad",
    "fwd",
}
NODES = {
    "AddmmBackward0",
    "ReluBackward0",
    "LogSoftmaxBackward0",
    "NllLossBackward0",
    "torch::autograd::AccumulateGrad",
}


def _train(lib, profiler_factory=None):
    """Two Adam steps of a small MLP over a DataLoader, profiled by `profiler_factory()`."""
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))
    opt = lib.optim.Adam(model.parameters(), lr=0.1)
    data = lib.utils.data.TensorDataset(
        lib.arange(24, dtype=lib.float32).reshape(6, 4) / 10, lib.tensor([0, 1, 1, 0, 1, 0])
    )
    loader = lib.utils.data.DataLoader(data, batch_size=3)
    prof = profiler_factory() if profiler_factory else None
    grads = []
    if prof is not None:
        prof.__enter__()
    try:
        for x, y in loader:
            with lib.profiler.record_function("fwd"):
                loss = lib.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            grads.append([p.grad.clone() for p in model.parameters()])
            opt.step()
            opt.zero_grad()
    finally:
        if prof is not None:
            prof.__exit__(None, None, None)
    return prof, [p.detach().clone() for p in model.parameters()], grads


def _counts(prof) -> dict:
    return {e.key: e.count for e in prof.key_averages()}


def test_training_step_records_torchs_names_and_counts(torch):
    ours, _, _ = _train(dyngrad, lambda: dyngrad.profiler.profile())
    theirs, _, _ = _train(torch, lambda: torch.profiler.profile())
    ours, theirs = _counts(ours), _counts(theirs)
    for name in SHARED_OPS | RANGES:
        assert ours.get(name) == theirs.get(name), name
    for node in NODES:
        for name in (node, "autograd::engine::evaluate_function: " + node):
            assert ours.get(name) == theirs.get(name), name
    # every name dyngrad records is one PyTorch records, with its count, but two: dyngrad's
    # NllLossBackward0 formula multiplies (PyTorch's calls aten::nll_loss_backward), and
    # PyTorch's AddmmBackward0 transposes more often
    assert set(ours) - set(theirs) == {"aten::mul"}
    assert {k for k in set(ours) & set(theirs) if ours[k] != theirs[k]} == {"aten::t"}


def test_profiling_changes_no_value_or_gradient():
    _, plain, plain_grads = _train(dyngrad)
    _, profiled, profiled_grads = _train(dyngrad, lambda: dyngrad.profiler.profile())
    for a, b in zip(plain + sum(plain_grads, []), profiled + sum(profiled_grads, [])):
        assert dyngrad.equal(a, b)


def _layout(table: str) -> list:
    """The table's lines with names, numbers and widths taken out: its skeleton."""
    lines = table.splitlines()
    header = [c for c in re.split(r"\s{2,}", lines[1].strip())]
    return [header, lines[0].count("  "), lines[-1].split(":")[0], lines[-2] == lines[0]]


@pytest.mark.parametrize("by_shape", [False, True])
def test_table_layout_is_torchs(torch, by_shape):
    tables = []
    for lib in (dyngrad, torch):
        prof, _, _ = _train(lib, lambda lib=lib: lib.profiler.profile(record_shapes=True))
        averages = prof.key_averages(group_by_input_shape=by_shape)
        tables.append(averages.table(sort_by="cpu_time_total", row_limit=5))
        if lib is dyngrad:  # every row: whether the DataLoader's is in the top 5 is timing
            every_row = averages.table(sort_by="cpu_time_total", row_limit=-1)
    ours, theirs = tables
    assert _layout(ours) == _layout(theirs)
    assert len(ours.splitlines()) == len(theirs.splitlines()) == 5 + 5
    header = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    assert _layout(ours)[0] == header + ["# of Calls"] + (["Input Shapes"] if by_shape else [])
    assert re.fullmatch(r"Self CPU time total: \d+\.\d{3}(us|ms|s)", ours.splitlines()[-1])
    # the longest name (the DataLoader's) is cut at 52 characters and "...", as PyTorch's
    assert "enumerate(DataLoader)#_SingleProcessDataLoaderIter._..." in every_row


def test_table_rows_are_sorted_and_the_shares_add_up():
    prof, _, _ = _train(dyngrad, lambda: dyngrad.profiler.profile())
    averages = prof.key_averages()
    rows = averages.table(sort_by="self_cpu_time_total", row_limit=1000).splitlines()[3:-2]
    selfs = [e.self_cpu_time_total for e in averages]
    assert len(rows) == len(averages)
    shares = [float(re.split(r"\s{2,}", r.strip())[1].rstrip("%")) for r in rows]
    assert shares == sorted(shares, reverse=True)
    assert sum(shares) == pytest.approx(100, abs=0.05 * len(rows))
    assert averages.self_cpu_time_total == pytest.approx(sum(selfs))


def test_self_time_is_total_less_children():
    x = dyngrad.ones(64, 64, requires_grad=True)
    with dyngrad.profiler.profile() as prof:
        with dyngrad.profiler.record_function("outer"):
            with dyngrad.profiler.record_function("inner"):
                y = (x @ x).relu()
            z = y.sum()
        z.backward()
    events = {}
    for e in prof.events():
        events.setdefault(e.name, e)  # the first of each name
    outer, inner = events["outer"], events["inner"]
    assert inner.cpu_parent is outer and events["aten::mm"].cpu_parent is inner
    assert events["aten::sum"].cpu_parent is outer
    children = sum(c.cpu_time_total for c in outer.cpu_children)
    assert outer.self_cpu_time_total == pytest.approx(outer.cpu_time_total - children)
    assert inner.time_range.start >= outer.time_range.start
    assert inner.time_range.end <= outer.time_range.end
    node = events["autograd::engine::evaluate_function: MmBackward0"]
    assert [c.name for c in node.cpu_children] == ["MmBackward0"]
    assert {c.name for c in node.cpu_children[0].cpu_children} >= {"aten::mm"}


def test_record_function_as_decorator_and_outside_a_profile():
    @dyngrad.profiler.record_function("decorated")
    def work(t):
        return t * 2

    assert work(dyngrad.ones(2)).tolist() == [2.0, 2.0]  # no profile: runs, records nothing
    with dyngrad.autograd.profiler.profile() as prof:
        work(dyngrad.ones(2))
        work(dyngrad.ones(2))
    averages = {e.key: e for e in prof.key_averages()}
    assert averages["decorated"].count == 2
    assert averages["aten::mul"].count == 2
    assert all(
        e.cpu_parent.name == "decorated" for e in prof.function_events if e.name == "aten::mul"
    )
    assert [e.is_user_annotation for e in prof.function_events[:2]] == [True, False]


def _steps(lib, sched, n=7):
    ready = []
    with lib.profiler.profile(
        schedule=sched, on_trace_ready=lambda p: ready.append(p.step_num)
    ) as p:
        for step in range(n):
            with lib.profiler.record_function(f"step{step}"):
                lib.ones(2) * 2
            p.step()
    recorded = sorted(e.key for e in p.key_averages() if e.key.startswith("step"))
    names = {e.key for e in p.key_averages()}
    return ready, recorded, "ProfilerStep*" in names


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(wait=1, warmup=1, active=2),
        dict(wait=1, warmup=1, active=2, repeat=1),
        dict(wait=0, warmup=1, active=1, skip_first=2),
        dict(wait=2, warmup=1, active=1, repeat=1, skip_first=1, skip_first_wait=1),
    ],
)
def test_schedule_records_the_steps_torch_does(torch, kwargs):
    results = []
    for lib in (dyngrad, torch):
        sched = lib.profiler.schedule(**kwargs)
        assert [sched(i).name for i in range(9)] == [
            torch.profiler.schedule(**kwargs)(i).name for i in range(9)
        ]
        results.append(_steps(lib, sched))
    assert results[0] == results[1]


def test_schedule_without_warmup_warns_as_torch():
    with pytest.warns(UserWarning, match="Profiler won't be using warmup"):
        dyngrad.profiler.schedule(wait=1, warmup=0, active=1)
    with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
        dyngrad.profiler.schedule(wait=1, warmup=1, active=0)


def test_chrome_traces_are_valid_json(tmp_path):
    x = dyngrad.ones(3, 3, requires_grad=True)
    with dyngrad.profiler.profile(record_shapes=True) as prof:
        with dyngrad.profiler.record_function("block"):
            (x * x).sum().backward()
    prof.export_chrome_trace(str(tmp_path / "trace.json"))
    trace = json.loads((tmp_path / "trace.json").read_text())
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert {e["name"] for e in complete} >= {"block", "aten::mul", "aten::sum", "MulBackward0"}
    assert all(e["dur"] >= 0 and isinstance(e["ts"], float) for e in complete)
    cats = {e["name"]: e["cat"] for e in complete}
    assert cats["block"] == "user_annotation" and cats["aten::mul"] == "cpu_op"
    prof.events().export_chrome_trace(str(tmp_path / "list.json"))  # EventList's own form
    rows = json.loads((tmp_path / "list.json").read_text())
    assert [r["name"] for r in rows] == [e.trace_name for e in prof.events()]


def test_tensorboard_trace_handler_writes_one_file_per_window(tmp_path):
    handler = dyngrad.profiler.tensorboard_trace_handler(str(tmp_path / "log"), "worker0")
    sched = dyngrad.profiler.schedule(wait=0, warmup=1, active=1)
    with dyngrad.profiler.profile(schedule=sched, on_trace_ready=handler) as p:
        for _ in range(4):
            dyngrad.ones(2) + 1
            p.step()
    files = sorted(glob.glob(str(tmp_path / "log" / "worker0.*.pt.trace.json")))
    assert len(files) == 2
    names = {e["name"] for e in json.load(open(files[0]))["traceEvents"]}
    assert {"ProfilerStep#1", "aten::add"} <= names


def test_shapes_are_recorded_when_asked(torch):
    shapes = []
    for lib in (dyngrad, torch):
        a, b = lib.ones(2, 3), lib.ones(3, 4)
        with lib.profiler.profile(record_shapes=True) as prof:
            lib.mm(a, b)
        [mm] = [e for e in prof.key_averages(group_by_input_shape=True) if e.key == "aten::mm"]
        shapes.append(mm.input_shapes)
    assert shapes[0] == shapes[1] == [[2, 3], [3, 4]]


def test_in_place_ops_carry_the_underscore(torch):
    counts = []
    for lib in (dyngrad, torch):
        x = lib.ones(3)
        with lib.profiler.profile() as prof:
            x.add_(1)
            x.mul_(2)
        counts.append({k: v for k, v in _counts(prof).items() if k in ("aten::add_", "aten::mul_")})
    assert counts[0] == counts[1] == {"aten::add_": 1, "aten::mul_": 1}


def test_the_profiler_restores_the_hooks_and_the_doctors_observer():
    record = dyngrad.ops.table.record
    seen = []
    record.observer = lambda op, *rest: seen.append(op.name)
    try:
        with dyngrad.profiler.profile():
            dyngrad.ones(2) * 3
        assert "mul" in seen  # the observer that was there is still told of every op
        assert record.observer is not None and record.autocast is None
    finally:
        record.observer = None
    assert dyngrad.autograd.profiler.collector is None


def test_one_profile_at_a_time_and_finished_before_reading():
    prof = dyngrad.autograd.profiler.profile()
    with pytest.raises(RuntimeError, match="Profiler didn't finish running"):
        prof.key_averages()
    with dyngrad.profiler.profile():
        with pytest.raises(RuntimeError, match="Profiler is already enabled"):
            with dyngrad.profiler.profile():
                pass


def test_emit_nvtx_says_it_is_not_supported():
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        with dyngrad.autograd.profiler.emit_nvtx():
            pass
    with dyngrad.autograd.profiler.emit_nvtx(enabled=False):
        pass


def test_profiling_under_autocast_keeps_both_hooks():
    a, b = dyngrad.ones(4, 4), dyngrad.ones(4, 4)
    with dyngrad.profiler.profile() as prof:
        with dyngrad.autocast("cpu", dtype=dyngrad.bfloat16):
            out = dyngrad.mm(a, b)
    assert out.dtype == dyngrad.bfloat16
    assert "aten::mm" in _counts(prof)
    assert dyngrad.ops.table.record.autocast is None


def test_torch_imports_resolve():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        import dyngrad.autograd.profiler as legacy
        import dyngrad.profiler as profiler
    assert legacy.record_function is profiler.record_function
    assert legacy.profile is profiler.legacy.profile
    assert dyngrad.profiler.ProfilerActivity.CPU in dyngrad.profiler.supported_activities()


def test_memory_columns_count_what_ops_allocate(torch):
    tables, usage = [], []
    for lib in (dyngrad, torch):
        x = lib.ones(64, 64, requires_grad=True)
        with lib.profiler.profile(profile_memory=True) as prof:
            (x @ x).sum().backward()
        averages = {e.key: e for e in prof.key_averages()}
        usage.append(
            (averages["aten::mm"].cpu_memory_usage, averages["MmBackward0"].cpu_memory_usage)
        )
        tables.append(prof.key_averages().table(sort_by="cpu_memory_usage", row_limit=3))
    assert usage[0] == usage[1] == (3 * 64 * 64 * 4, 2 * 64 * 64 * 4)
    assert _layout(tables[0]) == _layout(tables[1])
    assert "48.00 KB" in tables[0]


def test_stacks_point_at_the_users_lines(tmp_path):
    x = dyngrad.ones(2, requires_grad=True)
    with dyngrad.profiler.profile(with_stack=True) as prof:
        y = x * 3  # the forward op's line
        y.sum().backward()
    [mul] = [e for e in prof.events() if e.name == "aten::mul"][:1]
    assert mul.stack[0].startswith(__file__) and mul.stack[0].endswith(
        "test_stacks_point_at_the_users_lines"
    )
    assert all("/dyngrad/" not in entry.split("(")[0] or "tests" in entry for entry in mul.stack)
    table = prof.key_averages(group_by_stack_n=1).table(sort_by="count")
    assert "Source Location" in table.splitlines()[1]
    assert prof.key_averages().table().count("Source Location") == 0
    prof.export_stacks(str(tmp_path / "stacks.txt"), "self_cpu_time_total")
    lines = (tmp_path / "stacks.txt").read_text().splitlines()
    assert any(line.split(";")[-1].startswith(__file__) for line in lines)
    assert all(int(line.rsplit(" ", 1)[1]) > 0 for line in lines)


def test_forward_ops_link_to_their_backward_nodes(tmp_path):
    x = dyngrad.ones(3, requires_grad=True)
    with dyngrad.profiler.profile() as prof:
        y = x.exp()
        y.sum().backward()
    events = {e.name: e for e in prof.events()}
    assert events["aten::exp"].sequence_nr == events["ExpBackward0"].sequence_nr >= 0
    prof.export_chrome_trace(str(tmp_path / "t.json"))
    flows = [e for e in json.load(open(tmp_path / "t.json"))["traceEvents"] if e["ph"] in "sf"]
    seq = events["aten::exp"].sequence_nr
    assert sorted(e["ph"] for e in flows if e["id"] == seq) == ["f", "s"]


def test_time_unit_and_header(torch):
    tables = []
    for lib in (dyngrad, torch):
        with lib.profiler.profile() as prof:
            lib.ones(3) + 1
        tables.append(prof.key_averages().table(time_unit="ms", header="TITLE").splitlines())
    for lines in tables:  # a "=" rule as long as the table (less its trailing gap), the title
        assert lines[0] == "=" * len(lines[2].rstrip()) and lines[1] == "TITLE"
        assert re.fullmatch(r"Self CPU time total: \d+\.\d{3}ms", lines[-1])
    assert _layout("\n".join(tables[0][2:])) == _layout("\n".join(tables[1][2:]))


def test_autograd_profiler_forwards_every_legacy_name():
    # the autograd layer lists the names it fetches from dyngrad.profiler.legacy (it may not
    # import the tools layer); the two lists must not drift apart
    assert autograd_profiler._FROM_PROFILER == set(profiler_legacy.__all__)
    for name in profiler_legacy.__all__:
        assert getattr(autograd_profiler, name) is getattr(profiler_legacy, name)
