"""`dyngrad.utils`: PyTorch's `torch.utils` (data loading, activation checkpointing, hooks),
and `summary`, a model's table with saved-for-backward bytes (*dyngrad only*)."""

from __future__ import annotations

from . import checkpoint, data, dlpack, hooks
from .model_summary import summary

__all__ = ["data", "checkpoint", "dlpack", "hooks", "summary"]
