"""Shared fixtures: seeded randomness, and the optional torch oracle."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import dyngrad

HAS_TORCH = importlib.util.find_spec("torch") is not None


@pytest.fixture(autouse=True)
def _seeded():
    dyngrad.manual_seed(0)
    np.random.seed(0)
    yield
    dyngrad.set_default_dtype(dyngrad.float32)


@pytest.fixture
def torch():
    """The real PyTorch, as an oracle; tests that take it skip cleanly without it."""
    return pytest.importorskip("torch")


@pytest.fixture(params=["dyngrad", "torch"])
def lib(request):
    """dyngrad, then the real torch: the same assertions prove dyngrad matches PyTorch."""
    if request.param == "torch":
        return pytest.importorskip("torch")
    return dyngrad
