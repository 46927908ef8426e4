"""PyTorch's structured control flow, eagerly: `torch.cond` and `torch.while_loop` run the
Python they are given, and mark their results with PyTorch's nodes."""

from __future__ import annotations

from .cond import cond
from .while_loop import while_loop

__all__ = ["cond", "while_loop"]
