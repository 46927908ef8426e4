"""The allocator tuning: on by default on Linux/glibc, refusable by environment variable."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = "import dyngrad.runtime as b; print(b.MALLOC_TUNED)"


def _probe(**env) -> str:
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=True,
    )
    return out.stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux's")
def test_malloc_is_tuned_at_import_on_glibc():
    import platform

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("not glibc")
    assert _probe(DYNGRAD_MALLOC_TUNING="1") == "True"


def test_malloc_tuning_can_be_refused():
    assert _probe(DYNGRAD_MALLOC_TUNING="0") == "False"
