"""Workers and their main process outliving each other: orphans exit, dead workers raise."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from dyngrad.utils.data import DataLoader, Dataset

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads process states from /proc"
)

METHODS = [
    m for m in ("fork", "spawn", "forkserver") if m in multiprocessing.get_all_start_methods()
]


class Big(Dataset):
    """2 MB samples: a few of them fill a pipe (64 KB), so workers block writing."""

    def __len__(self):
        return 64

    def __getitem__(self, i):
        return np.zeros(1 << 18)


def _alive(pid: int) -> bool:
    # A zombie is dead: in a container whose init does not reap, it stays forever.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _wait_until_gone(pids, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


def _kill_all(pids) -> None:
    for pid in pids:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


ORPHANS = """
    import json, os, sys, time
    import numpy as np
    from dyngrad.utils.data import DataLoader, Dataset

    class Big(Dataset):
        def __len__(self):
            return 64

        def __getitem__(self, i):
            return np.zeros(1 << 18)

    if __name__ == "__main__":
        pid_file, methods = sys.argv[1], sys.argv[2:]
        iterators = {}  # every method's workers start before any is waited on
        for method in methods:
            loader = DataLoader(Big(), num_workers=2, prefetch_factor=4,
                                multiprocessing_context=method)
            iterators[method] = iter(loader)
        for it in iterators.values():
            next(it)
        pids = {m: [w.pid for w in it._workers] for m, it in iterators.items()}
        time.sleep(0.5)  # the workers fill their pipes and block writing the next batch
        with open(pid_file + ".tmp", "w") as f:
            json.dump(pids, f)
        os.replace(pid_file + ".tmp", pid_file)
        time.sleep(600)
"""


def _start_orphaning_script(tmp_path):
    script, pid_file = tmp_path / "orphans.py", tmp_path / "pids.json"
    script.write_text(textwrap.dedent(ORPHANS))
    with open(tmp_path / "stderr.txt", "wb") as stderr:
        proc = subprocess.Popen(
            [sys.executable, str(script), str(pid_file), *METHODS],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    return proc, pid_file


def _read_pids(proc, pid_file, tmp_path, seconds: float) -> dict[str, list[int]]:
    deadline = time.monotonic() + seconds
    while not pid_file.exists():
        errors = (tmp_path / "stderr.txt").read_text()
        assert proc.poll() is None, f"the script failed:\n{errors}"
        assert time.monotonic() < deadline, f"no workers after {seconds} s:\n{errors}"
        time.sleep(0.05)
    return json.loads(pid_file.read_text())


def test_workers_exit_when_the_main_process_is_killed(tmp_path):
    # Regression: workers blocked on a full result pipe outlived a SIGKILLed main process
    # forever (adopted by init), under every start method.
    proc, pid_file = _start_orphaning_script(tmp_path)
    pids: dict[str, list[int]] = {}
    try:
        pids = _read_pids(proc, pid_file, tmp_path, seconds=45)
        assert sorted(pids) == sorted(METHODS)
        assert all(_alive(p) for ps in pids.values() for p in ps)
        proc.kill()
        proc.wait(timeout=10)
        left = {m: _wait_until_gone(ps, seconds=5) for m, ps in pids.items()}
        assert left == {m: [] for m in METHODS}, "workers alive 5 s after their main died"
    finally:
        proc.kill()
        proc.wait(timeout=10)
        _kill_all(p for ps in pids.values() for p in ps)


@pytest.mark.parametrize("victim", [0, 1])
def test_worker_killed_halfway_through_a_batch_raises(victim):
    # Regression: the main process read the first part of the dead worker's batch and waited
    # forever for the rest (and its siblings for the lock it died holding).
    it = iter(DataLoader(Big(), num_workers=2, prefetch_factor=4))
    try:
        next(it)
        time.sleep(0.3)  # both workers are now blocked halfway through writing a batch
        pid = it._workers[victim].pid
        os.kill(pid, signal.SIGKILL)
        start = time.monotonic()
        with pytest.raises(
            RuntimeError,
            match=rf"DataLoader worker \(pid\(s\) {pid}\) exited unexpectedly\n"
            r"\(killed by signal SIGKILL",
        ):
            for _ in range(len(it)):
                next(it)
        assert time.monotonic() - start < 5
        assert _wait_until_gone([w.pid for w in it._workers], seconds=5) == []
    finally:
        it._shutdown_workers()


def test_abandoned_iterator_stops_workers_blocked_on_a_full_pipe():
    it = iter(DataLoader(Big(), num_workers=2, prefetch_factor=4))
    pids = [w.pid for w in it._workers]
    try:
        next(it)
        time.sleep(0.3)
        start = time.monotonic()
        it._shutdown_workers()
        assert _wait_until_gone(pids, seconds=5) == []
        # They quit on the closed pipe, not on the last resort (terminate after 1 s each).
        assert time.monotonic() - start < 1
        assert [w.exitcode for w in it._workers] == [0, 0]
    finally:
        _kill_all(pids)


def test_large_batches_arrive_whole_and_in_order():
    class Numbered(Dataset):
        def __len__(self):
            return 12

        def __getitem__(self, i):
            return np.full(300_001, i, dtype=np.int64)  # not a multiple of any pipe chunk

    batches = list(DataLoader(Numbered(), batch_size=2, num_workers=2, prefetch_factor=3))
    assert [b.shape for b in batches] == [(2, 300_001)] * 6
    assert [b[:, ::100_000].tolist() for b in batches] == [
        [[2 * k] * 4, [2 * k + 1] * 4] for k in range(6)
    ]
