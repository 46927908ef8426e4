"""Helpers of the autograd tests (the `lib` fixture is in tests/conftest.py)."""

from __future__ import annotations


def first_line(excinfo) -> str:
    """The first line of an error: PyTorch's sentence, before dyngrad's own details."""
    return str(excinfo.value).split("\n")[0]
