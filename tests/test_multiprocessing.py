"""torch.multiprocessing: the re-exported API, the sharing strategies, tensors through a
Queue, and spawn's errors, against torch. Every child is joined with a timeout."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys

import pytest

import dyngrad

TIMEOUT = 60


def _write_marker(i, path):
    with open(f"{path}.{i}", "w") as fh:
        fh.write(str(i))


def _raise_on_one(i):
    if i == 1:
        raise ValueError("child failed on purpose")


def _exit_with_three(i):
    raise SystemExit(3)


def _run_child(ctx, target, args):
    process = ctx.Process(target=target, args=args)
    process.start()
    return process


def _finish(process):
    process.join(TIMEOUT)
    if process.is_alive():
        process.kill()
        process.join()
    assert process.exitcode == 0


def test_module_re_exports_multiprocessing_as_torch(torch):
    mp = dyngrad.multiprocessing
    assert set(mp.__all__) >= set(torch.multiprocessing.__all__)
    for name in ("Process", "Queue", "Pool", "get_context", "set_start_method", "Pipe"):
        assert getattr(mp, name) is getattr(multiprocessing, name)
    for name in ("spawn", "start_processes", "ProcessContext", "ProcessRaisedException"):
        assert callable(getattr(mp, name))
    import dyngrad.multiprocessing as imported

    assert imported is mp


def test_sharing_strategies_as_torch(lib):
    mp = lib.multiprocessing
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    assert mp.get_sharing_strategy() == "file_descriptor"
    mp.set_sharing_strategy("file_system")
    try:
        assert mp.get_sharing_strategy() == "file_system"
        with pytest.raises(AssertionError, match="invalid sharing strategy 'shm'"):
            mp.set_sharing_strategy("shm")
    finally:
        mp.set_sharing_strategy("file_descriptor")


def _exchange(queue, back):
    t = queue.get(timeout=TIMEOUT)
    t.add_(10)  # in the memory the parent shares
    p = queue.get(timeout=TIMEOUT)
    back.put((t.is_shared(), type(p).__name__, p.requires_grad))
    p.data.mul_(2)
    back.put(t * 1)
    queue.get(timeout=TIMEOUT)  # serve the descriptor until the parent has it, as torch needs


@pytest.mark.parametrize(
    "name,method", [("dyngrad", "fork"), ("dyngrad", "spawn"), ("torch", "fork")]
)
def test_tensors_through_a_queue_share_memory_as_torch(name, method):
    lib = dyngrad if name == "dyngrad" else pytest.importorskip("torch")
    ctx = lib.multiprocessing.get_context(method)
    queue, back = ctx.Queue(), ctx.Queue()
    t, p = lib.arange(4.0), lib.nn.Parameter(lib.ones(2))
    process = _run_child(ctx, _exchange, (queue, back))
    try:
        queue.put(t)
        queue.put(p)
        assert back.get(timeout=TIMEOUT) == (True, "Parameter", True)
        result = back.get(timeout=TIMEOUT)
        queue.put(None)
    finally:
        _finish(process)
    assert t.is_shared() and t.tolist() == [10.0, 11.0, 12.0, 13.0] and p.tolist() == [2.0, 2.0]
    assert result.tolist() == [10.0, 11.0, 12.0, 13.0] and result.is_shared()


def test_a_view_crosses_a_queue_as_a_copy_of_its_values():
    ctx = dyngrad.multiprocessing.get_context("fork")
    queue = ctx.Queue()
    base = dyngrad.arange(6.0, dtype=dyngrad.float64)
    queue.put(base[::2])
    got = queue.get(timeout=TIMEOUT)
    assert got.dtype == dyngrad.float64 and got.tolist() == [0.0, 2.0, 4.0]
    leaf = dyngrad.ones(3, requires_grad=True)
    queue.put(leaf)
    back = queue.get(timeout=TIMEOUT)
    assert back.requires_grad and back.is_leaf and back.tolist() == [1.0, 1.0, 1.0]
    queue.close()
    queue.join_thread()


def test_non_leaf_requiring_grad_is_refused_as_torch(lib):
    reduction = multiprocessing.reduction
    t = lib.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor"):
        reduction.ForkingPickler.dumps(t)
    assert len(reduction.ForkingPickler.dumps(t.detach())) > 0


def test_start_processes_runs_each_index(tmp_path):
    path = str(tmp_path / "marker")
    context = dyngrad.multiprocessing.start_processes(
        _write_marker, args=(path,), nprocs=2, join=False, start_method="fork"
    )
    try:
        assert len(context.pids()) == 2
        while not context.join(timeout=TIMEOUT):
            pass
    finally:
        for process in context.processes:
            process.kill()
            process.join()
    assert [open(f"{path}.{i}").read() for i in range(2)] == ["0", "1"]


@pytest.mark.parametrize("name", ["dyngrad", "torch"])
def test_a_child_exception_is_raised_in_the_parent_as_torch(name):
    lib = dyngrad if name == "dyngrad" else pytest.importorskip("torch")
    mp = lib.multiprocessing
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.start_processes(_raise_on_one, nprocs=2, start_method="fork")
    assert info.value.error_index == 1
    assert "-- Process 1 terminated with the following error:" in str(info.value)
    assert "ValueError: child failed on purpose" in str(info.value)


@pytest.mark.parametrize("name", ["dyngrad", "torch"])
def test_a_child_exit_code_is_raised_in_the_parent_as_torch(name):
    lib = dyngrad if name == "dyngrad" else pytest.importorskip("torch")
    mp = lib.multiprocessing
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit code 3"):
        mp.start_processes(_exit_with_three, nprocs=1, start_method="fork")


def test_spawn_warns_on_another_start_method_and_spawns(tmp_path):
    path = str(tmp_path / "spawned")
    with pytest.warns(FutureWarning, match="This method only supports start_method=spawn"):
        dyngrad.multiprocessing.spawn(_write_marker, args=(path,), start_method="fork")
    assert open(f"{path}.0").read() == "0"


SCRIPT = """
import torch
import torch.multiprocessing as mp


def work(i, queue, done):
    queue.put((i, torch.full((2,), float(i)) * 3, torch.__name__))
    done.wait(60)  # serve the tensor's memory until the parent has it


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    queue, done = ctx.SimpleQueue(), ctx.Event()
    processes = mp.spawn(work, args=(queue, done), nprocs=2, join=False)
    got = sorted(queue.get() for _ in range(2))
    done.set()
    while not processes.join(60):
        pass
    print([(i, t.tolist(), type(t).__module__, name) for i, t, name in got])
"""


def test_spawn_under_the_torch_alias_runs_dyngrad_in_the_children(tmp_path):
    script = tmp_path / "spawned.py"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [sys.executable, "-m", "dyngrad", "run", str(script)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == (
        "[(0, [0.0, 0.0], 'dyngrad._tensor', 'dyngrad'), (1, [3.0, 3.0], 'dyngrad._tensor', 'dyngrad')]"
    )


def _hogwild_step(model, rank):
    # rank 0 doubles the bias; each rank adds rank + 1 to the weight (the data, as an
    # optimizer's step writes it)
    model.weight.data.add_(rank + 1.0)
    if rank == 0:
        model.bias.data.mul_(2.0)


@pytest.mark.parametrize("name", ["dyngrad", "torch"])
def test_hogwild_children_update_the_parents_shared_parameters_as_torch(name):
    lib = dyngrad if name == "dyngrad" else pytest.importorskip("torch")
    lib.manual_seed(0)
    model = lib.nn.Linear(3, 2).share_memory()
    assert all(p.is_shared() for p in model.parameters())
    weight, bias = model.weight.detach().clone(), model.bias.detach().clone()
    ctx = multiprocessing.get_context("fork")
    processes = [ctx.Process(target=_hogwild_step, args=(model, rank)) for rank in range(2)]
    for process in processes:
        process.start()
    for process in processes:
        _finish(process)
    assert lib.allclose(model.weight, weight + 3.0) and lib.allclose(model.bias, bias * 2)


def test_a_view_is_marked_shared_and_keeps_its_bases_memory():
    base = dyngrad.arange(4.0)
    view = base[1:]
    assert view.share_memory_() is view and view.is_shared() and not base.is_shared()
    view[0] = 9.0
    assert base[1].item() == 9.0
