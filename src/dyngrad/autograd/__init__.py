"""`dyngrad.autograd`: backward, grad, grad modes, Function, anomaly mode, gradcheck."""

from __future__ import annotations

from ..graph.grad_mode import (
    _force_original_view_tracking,  # noqa: F401 - torch.autograd._force_original_view_tracking
    enable_grad,
    inference_mode,
    is_view_replay_enabled,
    no_grad,
    set_grad_enabled,
)
from . import graph, profiler
from .anomaly import detect_anomaly, set_detect_anomaly
from .engine import _is_checkpoint_valid as _is_checkpoint_valid  # torch.autograd's
from .engine import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import gradcheck, gradgradcheck
from .saved_tensors import SavedTensor
from .variable import Variable

# isort: split
from . import functional  # noqa: F401 - after the engine, whose import its own needs

__all__ = [
    "backward",
    "grad",
    "graph",
    "profiler",
    "Function",
    "FunctionCtx",
    "once_differentiable",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_view_replay_enabled",
    "detect_anomaly",
    "set_detect_anomaly",
    "gradcheck",
    "gradgradcheck",
    "Variable",
    "SavedTensor",
]
