"""`dyngrad.utils`: PyTorch's `torch.utils` (data loading)."""

from __future__ import annotations

from . import data

__all__ = ["data"]
