"""`dyngrad.utils`: PyTorch's `torch.utils` (data loading, activation checkpointing)."""

from __future__ import annotations

from . import checkpoint, data

__all__ = ["data", "checkpoint"]
