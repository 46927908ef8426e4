"""Running one script under real PyTorch and under dyngrad's torch alias, for comparison."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")


def has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def needs(*modules: str):
    """Skip (cleanly, naming the extra) when a library of the test extras is absent."""
    missing = [m for m in modules if not has(m)]
    return pytest.mark.skipif(bool(missing), reason=f"needs {', '.join(missing)} (test extras)")


def run(tmp_path, source: str, *, under: str, args=(), timeout: float = 120):
    """Run `source` as a script: under="dyngrad" through `python -m dyngrad run`, under="torch"
    with the real torch (skipped when it is not installed), under="plain" as it is."""
    if under == "torch" and not has("torch"):
        pytest.skip("torch is not installed")
    script = tmp_path / f"script_{under}.py"
    script.write_text(textwrap.dedent(source))
    command = [sys.executable, "-m", "dyngrad", "run"] if under == "dyngrad" else [sys.executable]
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(
        [*command, str(script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done
