"""Jobs of several ranks for the tests: mpiexec with its own timeout, leftovers killed after."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import dyngrad

WORKERS = Path(__file__).resolve().parent / "workers"


def find_mpiexec() -> str | None:
    beside_python = Path(sys.executable).parent / "mpiexec"
    return str(beside_python) if beside_python.exists() else shutil.which("mpiexec")


MPIEXEC = find_mpiexec()
HAS_MPI = importlib.util.find_spec("mpi4py") is not None and MPIEXEC is not None
needs_mpi = pytest.mark.skipif(
    not HAS_MPI, reason="needs mpi4py and an MPI (pip install 'dyngrad[distributed]')"
)


def launch(args: list, timeout: float = 90, cwd=None) -> subprocess.CompletedProcess:
    """Run `args` (an mpiexec or launcher command) in a session of its own; whatever is
    left of it when it ends or times out is killed."""
    package_root = str(Path(dyngrad.__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    env["MPIEXEC_TIMEOUT"] = str(int(timeout))  # hydra ends the job itself past this
    env.pop("OMP_NUM_THREADS", None)
    proc = subprocess.Popen(
        [str(a) for a in args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout + 15)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if proc.poll() is None:
            proc.wait()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def mpiexec(ranks: int, *args, timeout: float = 90, cwd=None) -> subprocess.CompletedProcess:
    """`mpiexec -n RANKS python ARGS...`."""
    return launch([MPIEXEC, "-n", ranks, sys.executable, *args], timeout, cwd)


def results(folder: Path) -> list[dict]:
    """The records the ranks wrote as JSON files into `folder`."""
    return [json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))]
