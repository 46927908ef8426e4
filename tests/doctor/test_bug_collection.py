"""The bug collection: each buggy script is reported with the right kind at the marked line
(`# doctor: KIND`), and each correct script gives no finding."""

from __future__ import annotations

import importlib.util
from collections import Counter

import pytest

from dyngrad.doctor import KINDS

from .harness import CASES, expected, needs_mpi, ranks, run_case

SCRIPTS = sorted(CASES.glob("*.py"))
BUGGY = [p for p in SCRIPTS if p.name.startswith("bug_")]
# the articles' training skeleton is a correct program too: run the example itself
SKELETON = CASES.parents[2] / "examples" / "seed004_training_skeleton.py"
CORRECT = [p for p in SCRIPTS if p.name.startswith("ok_")] + [SKELETON]
# scripts of several ranks run as MPI jobs, in test_data_parallel.py
ONE_RANK_BUGGY = [p for p in BUGGY if ranks(p) == 1]
ONE_RANK_CORRECT = [p for p in CORRECT if ranks(p) == 1]
HAS_MPI4PY = importlib.util.find_spec("mpi4py") is not None


def skip_without_mpi(path) -> None:
    if needs_mpi(path) and not HAS_MPI4PY:
        pytest.skip("the script starts a process group: needs mpi4py")


def test_collection_has_two_bugs_per_kind_and_ten_correct_programs():
    per_kind = Counter(kind for path in BUGGY for kind in {k for k, _ in expected(path)})
    assert {kind: per_kind[kind] for kind in KINDS if per_kind[kind] < 2} == {}
    assert set(per_kind) <= set(KINDS)
    assert len(CORRECT) >= 10
    assert all(not expected(path) for path in CORRECT)


@pytest.mark.parametrize("path", ONE_RANK_BUGGY, ids=lambda p: p.stem)
def test_bug_is_reported_at_its_line(path):
    skip_without_mpi(path)
    findings, _ = run_case(path)
    assert {(f.kind, f.line) for f in findings} == expected(path)
    assert {f.file for f in findings} == {str(path)}
    assert all(f.message and f.hint for f in findings)


@pytest.mark.parametrize("path", ONE_RANK_CORRECT, ids=lambda p: p.stem)
def test_correct_program_gives_no_finding(path):
    skip_without_mpi(path)
    findings, error = run_case(path)
    assert error is None
    assert [(f.kind, f.line, f.message) for f in findings] == []
