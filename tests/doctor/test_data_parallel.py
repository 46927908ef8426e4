"""The doctor on jobs of two ranks: the bug collection's multi-rank scripts (each rank reports
its own findings), and `python -m dyngrad doctor` through the launcher, a report per rank."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ..distributed.launch import MPIEXEC, launch, mpiexec, needs_mpi, results
from .harness import CASES, expected, ranks

pytestmark = needs_mpi

MULTI_RANK = [p for p in sorted(CASES.glob("*.py")) if ranks(p) > 1]


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """{(script, rank): record}, all multi-rank scripts run in one job of two ranks."""
    out = tmp_path_factory.mktemp("ranks")
    done = mpiexec(2, Path(__file__).with_name("rank_cases.py"), out, *MULTI_RANK, timeout=120)
    found = {
        (record["script"], rank["rank"]): record
        for rank in results(out)
        for record in rank["records"]
    }
    assert len(found) == 2 * len(MULTI_RANK), done.stderr[-3000:]
    return found


@pytest.mark.parametrize("path", MULTI_RANK, ids=lambda p: p.stem)
def test_every_rank_reports_the_scripts_findings(path, reports):
    for rank in (0, 1):
        record = reports[path.name, rank]
        assert record["error"] is None
        assert {(kind, line) for kind, line, _ in record["findings"]} == expected(path)
        assert {file for _, _, file in record["findings"]} <= {str(path)}


def test_doctor_command_through_the_launcher_reports_per_rank(tmp_path):
    script = CASES / "bug_params_differ_unwrapped.py"
    command = [sys.executable, "-m", "dyngrad.distributed.run", "--nproc-per-node", "2"]
    command += ["--mpiexec", MPIEXEC, "-m", "dyngrad", "doctor", "--json", "out.json", script]
    done = launch(command, timeout=90, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    for rank in (0, 1):
        assert f"dyngrad doctor, rank {rank} of 2: 1 finding" in done.stderr
        findings = json.loads((tmp_path / f"out.rank{rank}.json").read_text())
        assert {(f["kind"], f["line"]) for f in findings} == expected(script)
        assert "hold different values on rank 0 and rank 1" in findings[0]["message"]
