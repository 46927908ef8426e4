"""nn tests: torch, when installed, runs single-threaded (its small ops only wait on threads)."""

from __future__ import annotations

import importlib.util

import pytest


@pytest.fixture(autouse=True, scope="session")
def _single_threaded_torch():
    if importlib.util.find_spec("torch") is not None:
        import torch

        torch.set_num_threads(1)
