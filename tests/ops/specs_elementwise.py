"""Specs for the elementwise op family."""

from __future__ import annotations

from .spec import OpSpec, T  # noqa: F401

SPECS: list[OpSpec] = []
