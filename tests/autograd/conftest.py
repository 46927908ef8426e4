"""The `lib` fixture: each test runs on dyngrad and, as the oracle, on the real torch."""

from __future__ import annotations

import pytest

import dyngrad


@pytest.fixture(params=["dyngrad", "torch"])
def lib(request):
    """dyngrad, then the real torch: the same assertions prove dyngrad matches PyTorch."""
    if request.param == "torch":
        return pytest.importorskip("torch")
    return dyngrad


def first_line(excinfo) -> str:
    """The first line of an error: PyTorch's sentence, before dyngrad's own details."""
    return str(excinfo.value).split("\n")[0]
