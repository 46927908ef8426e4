"""graphviz is an optional extra: without it, `make_dot` says how to install it."""

from __future__ import annotations

import subprocess
import sys

import pytest

import dyngrad as torch
from dyngrad import viz


def test_missing_graphviz_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)  # as if not installed
    with pytest.raises(ImportError, match=r"pip install dyngrad\[viz\]"):
        viz.make_dot(torch.ones(1, requires_grad=True) * 2)


def test_importing_dyngrad_needs_no_graphviz():
    code = "import sys; sys.modules['graphviz'] = None; import dyngrad; print(dyngrad.viz.make_dot)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("<function make_dot")
