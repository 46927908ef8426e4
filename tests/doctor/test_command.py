"""`python -m dyngrad doctor`: an unmodified torch script, its exit status, the table on
stderr and the JSON file, also when the script raises."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

CASES = __import__("pathlib").Path(__file__).resolve().parent / "cases"


def _doctor(tmp_path, *args: str):
    return subprocess.run(
        [sys.executable, "-m", "dyngrad", "doctor", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )


def test_reports_findings_and_writes_json(tmp_path):
    script = CASES / "bug_graph_growth_total.py"
    result = _doctor(tmp_path, "--json", "out.json", str(script))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("mean loss")
    assert "dyngrad doctor: 1 finding" in result.stderr
    assert f"{script}:16" in result.stderr or "bug_graph_growth_total.py:16" in result.stderr
    (item,) = json.loads((tmp_path / "out.json").read_text())
    assert (item["kind"], item["file"], item["line"]) == ("graph-growth", str(script), 16)


def test_exit_status_and_arguments_pass_through(tmp_path):
    script = tmp_path / "exit.py"
    script.write_text(
        textwrap.dedent("""
        import sys
        import torch
        print(sys.argv[1:], torch.ones(1).requires_grad)
        sys.exit(int(sys.argv[1]))
    """)
    )
    result = _doctor(tmp_path, str(script), "3", "--flag")
    assert result.returncode == 3
    assert result.stdout == "['3', '--flag'] False\n"
    assert result.stderr.strip() == "dyngrad doctor: no findings"


def test_findings_are_reported_when_the_script_raises(tmp_path):
    script = CASES / "bug_backward_twice_losses.py"
    result = _doctor(tmp_path, "--json", "out.json", str(script))
    assert result.returncode == 1
    assert "Traceback (most recent call last)" in result.stderr
    assert "RuntimeError: Trying to backward through the graph a second time" in result.stderr
    assert "runpy" not in result.stderr and "dyngrad/cli.py" not in result.stderr
    assert result.stderr.index("Traceback") < result.stderr.index("dyngrad doctor: 1 finding")
    (item,) = json.loads((tmp_path / "out.json").read_text())
    assert (item["kind"], item["line"]) == ("backward-twice", 14)
