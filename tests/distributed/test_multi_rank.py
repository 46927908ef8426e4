"""Jobs of 2 and 4 ranks on this machine: the collectives against their definitions, DDP
against one process on the global batch, and a job that ends when one rank fails."""

from __future__ import annotations

import sys
import time

import pytest

from .launch import MPIEXEC, WORKERS, launch, mpiexec, needs_mpi, results

pytestmark = needs_mpi


def check_names() -> list[str]:
    sys.path.insert(0, str(WORKERS))
    try:
        import collective_checks
        import ddp_checks
    finally:
        sys.path.remove(str(WORKERS))
    names = [fn.__name__ for fn in collective_checks.CHECKS + ddp_checks.CHECKS]
    return ["uninitialized_calls_raise", *names, "init_twice_raises", "destroyed"]


@pytest.mark.parametrize("ranks", [2, 4])
def test_collectives_and_ddp_pass_their_checks_on_every_rank(ranks, tmp_path):
    done = mpiexec(ranks, WORKERS / "run_checks.py", tmp_path)
    found = results(tmp_path)
    assert [record["rank"] for record in found] == list(range(ranks)), done.stderr[-3000:]
    for record in found:
        failures = "\n".join(record["failures"].values())
        assert record["failures"] == {}, f"rank {record['rank']}:\n{failures}"
        assert record["passed"] == check_names()


def test_a_rank_that_raises_ends_the_job_with_its_traceback():
    started = time.monotonic()
    command = [sys.executable, "-m", "dyngrad.distributed.run", "--nproc-per-node", "2"]
    done = launch([*command, "--mpiexec", MPIEXEC, WORKERS / "fail.py", "raise"], timeout=60)
    assert time.monotonic() - started < 45, "the job ended by itself"
    assert done.returncode == 1
    lines = sorted(line for line in done.stdout.splitlines() if line.startswith("rank "))
    assert lines == ["rank 0: 0 0 2 2 1 True", "rank 1: 1 1 2 2 1 True"]  # torchrun's variables
    err = done.stderr
    traceback = err[err.index("Traceback") :]
    # the first frame is the script's, no runner frames (the ranks' stderr may interleave
    # other lines, such as the launcher's banner, between the traceback's lines)
    frames = [line for line in traceback.splitlines() if line.lstrip().startswith('File "')]
    assert frames[0].endswith('fail.py", line 17, in <module>'), traceback
    assert "ValueError: boom on rank 1" in traceback
    summary = err[err.index("Root Cause (first observed failure):") :]
    assert "rank      : 1 (local_rank: 1)" in summary and "ValueError: boom on rank 1" in summary


def test_a_rank_that_exits_makes_the_waiting_rank_raise_instead_of_hanging():
    started = time.monotonic()
    done = mpiexec(2, WORKERS / "fail.py", "exit", timeout=60)
    assert time.monotonic() - started < 45
    assert done.returncode != 0
    assert "rank 0: not reached" not in done.stdout
    assert "all_reduce cannot complete: rank 1 left the job without joining it" in done.stderr
