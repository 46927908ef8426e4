"""Run a script of the bug collection under the doctor, in this process, `import torch`
meaning dyngrad; and read the findings its `# doctor: KIND` comments expect."""

from __future__ import annotations

import contextlib
import io
import re
import runpy
import sys
import warnings
from pathlib import Path

import dyngrad
from dyngrad import _torch_alias

CASES = Path(__file__).resolve().parent / "cases"
MARK = re.compile(r"#\s*doctor:\s*([\w-]+)")
RANKS = re.compile(r"^#\s*ranks:\s*(\d+)", re.MULTILINE)


def ranks(path: Path) -> int:
    """How many ranks the script runs on (a `# ranks: N` line; one by default)."""
    found = RANKS.search(path.read_text())
    return int(found.group(1)) if found else 1


def needs_mpi(path: Path) -> bool:
    """Whether the script starts a process group (it needs mpi4py, even alone)."""
    return "init_process_group" in path.read_text()


def expected(path: Path) -> set:
    """{(kind, line)} from the script's `# doctor: KIND` comments."""
    found = set()
    for number, text in enumerate(path.read_text().splitlines(), 1):
        for kind in MARK.findall(text):
            found.add((kind, number))
    return found


@contextlib.contextmanager
def torch_is_dyngrad():
    """`import torch` resolves to dyngrad inside, and whatever torch was loaded comes back."""
    saved = {n: m for n, m in sys.modules.items() if n == "torch" or n.startswith("torch.")}
    for name in saved:
        del sys.modules[name]
    _torch_alias.install()
    try:
        yield
    finally:
        _torch_alias.uninstall()
        sys.modules.update(saved)


def run_case(path: Path):
    """(findings, error) of running `path` under `dyngrad.doctor.watch()`."""
    error = None
    out = io.StringIO()
    with torch_is_dyngrad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dyngrad.manual_seed(0)
        with contextlib.redirect_stdout(out), dyngrad.doctor.watch() as report:
            try:
                runpy.run_path(str(path), run_name="__main__")
            except Exception as exc:  # the bug may raise; the findings still count
                error = exc
    return list(report), error
