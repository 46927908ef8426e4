"""Versions and packaging: `dyngrad --version`, `torch.__version__` under the alias (a 2.x
version that names dyngrad), `TorchVersion`'s comparisons, and the license metadata."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import dyngrad
from dyngrad.version import TorchVersion

from .ecosystem.scripts import SRC, run

ROOT = Path(__file__).resolve().parents[1]


def test_dyngrad_version_is_the_release():
    assert dyngrad.__version__ == dyngrad.version.dyngrad == "0.1.0"
    assert dyngrad.version.__version__ == "2.13.0+dyngrad.0.1.0"
    assert (dyngrad.version.cuda, dyngrad.version.hip, dyngrad.version.debug) == (None, None, False)


def test_torch_version_compares_by_release_numbers():
    v = TorchVersion("2.13.0+dyngrad.0.1.0")
    assert v >= "2.0" and v > "2.2" and v < "2.14" and v < "3" and v > "1.13.1"
    assert v >= (2, 1) and v < (2, 14) and v == (2, 13) and v == "2.13.0"
    assert v != "2.12" and not v < "2.13.0"
    assert isinstance(v, str) and v.startswith("2.13.0") and "dyngrad" in v


def test_torch_version_parses_with_packaging():
    version = pytest.importorskip("packaging.version")
    parsed = version.parse(dyngrad.version.__version__)
    assert parsed >= version.parse("2.0") and parsed.local == "dyngrad.0.1.0"
    assert parsed.release == (2, 13, 0)
    assert TorchVersion("2.13.0+dyngrad.0.1.0") > version.Version("2.1.2")


@pytest.mark.parametrize("command", [[sys.executable, "-m", "dyngrad"], ["dyngrad"]])
def test_version_flag(command):
    if command == ["dyngrad"] and shutil.which("dyngrad") is None:
        pytest.skip("the dyngrad console script is not installed")
    done = subprocess.run(
        [*command, "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": SRC, "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin"},
    )
    assert (done.returncode, done.stdout) == (0, "dyngrad 0.1.0 (PyTorch 2.13.0 API)\n")


VERSION_SCRIPT = """
import torch
from packaging import version

print(torch.__version__, torch.version.__version__, torch.version.cuda)
print(version.parse(torch.__version__) >= version.parse("2.0"), torch.__version__ >= "2.1",
      torch.__version__ >= (2, 0), "dyngrad" in torch.__version__)
"""


def test_torch_version_under_dyngrad_run(tmp_path):
    pytest.importorskip("packaging")
    out = run(tmp_path, VERSION_SCRIPT, under="dyngrad").stdout.splitlines()
    assert out == ["2.13.0+dyngrad.0.1.0 2.13.0+dyngrad.0.1.0 None", "True True True True"]


INSTALL_SCRIPT = """
import sys
import dyngrad

dyngrad.install_as_torch()
import torch
import torch.nn.functional as F

print(torch is dyngrad, F is dyngrad.nn.functional, torch.__version__)
print(F.relu(torch.tensor([-1.0, 2.0])).tolist())
dyngrad.uninstall_as_torch()
print(dyngrad.__version__, "torch" in sys.modules)
"""


def test_install_as_torch_and_back(tmp_path):
    out = run(tmp_path, INSTALL_SCRIPT, under="plain").stdout.splitlines()
    assert out == ["True True 2.13.0+dyngrad.0.1.0", "[0.0, 2.0]", "0.1.0 False"]


def test_license_metadata_in_pep_639_form():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]
    assert "version" in project["dynamic"]
