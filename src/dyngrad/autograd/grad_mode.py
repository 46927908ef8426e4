"""`torch.autograd.grad_mode`: the grad-mode context managers (they live in dyngrad.graph,
below the ops that read the mode)."""

from __future__ import annotations

from ..graph.grad_mode import (
    _force_original_view_tracking,
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    is_view_replay_enabled,
    no_grad,
    set_grad_enabled,
)

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "is_view_replay_enabled",
    "_force_original_view_tracking",
]
