"""All op specs, gathered from one file per op family."""

from __future__ import annotations

from .specs_core import SPECS as CORE

SPECS = CORE
