"""DataLoader workers started by spawn and forkserver (fresh interpreters that run the main
script again) see `torch` as the parent does: under `dyngrad run`, after `install_as_torch()`,
and with `import dyngrad as torch`. See Note [torch alias in worker processes]."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from .scripts import SRC

SCRIPT = """
import os
import sys
{imports}


class Squares(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor([float(i * i)]), os.getpid()


if __name__ == "__main__":
    method = sys.argv[1]
    loader = DataLoader(Squares(), batch_size=4, num_workers=2, multiprocessing_context=method)
    batches = list(loader)
    print(method, [x.flatten().tolist() for x, _ in batches], type(batches[0][0]).__module__)
    pids = sorted({{int(p) for _, pid in batches for p in pid.tolist()}})
    print("workers", len(pids), os.getpid() not in pids, *pids)
"""

IMPORTS = {
    "dyngrad run": "import torch\nfrom torch.utils.data import DataLoader, Dataset",
    "install_as_torch": (
        "import dyngrad\ndyngrad.install_as_torch()\nimport torch\n"
        "from torch.utils.data import DataLoader, Dataset"
    ),
    "import dyngrad as torch": (
        "import dyngrad as torch\nfrom dyngrad.utils.data import DataLoader, Dataset"
    ),
}
# spawn under each way of importing; forkserver (the same preparation of the main script,
# Linux's default from Python 3.14) under `dyngrad run`
CASES = [("spawn", how) for how in IMPORTS] + [("forkserver", "dyngrad run")]
CASES = [case for case in CASES if case[0] in multiprocessing.get_all_start_methods()]


def _run(tmp_path, how: str, method: str) -> str:
    script = tmp_path / "load.py"
    script.write_text(textwrap.dedent(SCRIPT.format(imports=IMPORTS[how])))
    command = [sys.executable, "-m", "dyngrad", "run"] if how == "dyngrad run" else [sys.executable]
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # its own session, so that on a timeout the script and its workers are killed together
    proc = subprocess.Popen(
        [*command, str(script), method],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{how} with {method} workers did not finish in 120 s")
    assert proc.returncode == 0, err
    return out


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.parametrize("method,how", CASES)
def test_spawned_workers_import_torch_as_the_parent_does(tmp_path, method, how):
    out = _run(tmp_path, how, method).splitlines()
    assert out[0] == f"{method} [[0.0, 1.0, 4.0, 9.0], [16.0, 25.0, 36.0, 49.0]] dyngrad._tensor"
    words = out[1].split()
    assert words[:3] == ["workers", "2", "True"]
    deadline = time.monotonic() + 10
    while not all(_gone(int(pid)) for pid in words[3:]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(_gone(int(pid)) for pid in words[3:]), "worker processes outlived the script"
