"""`torch._dynamo`: dyngrad's compile (capture by running, guards, graph breaks, explain).

See docs/compile.md. The pieces: capture.py (what a compiled call does, watched),
frames.py (Dynamo's graphs and breaks rebuilt from that), guards.py (cache keys),
compiled_node.py (CompiledFunctionBackward), eval_frame.py (torch.compile, OptimizedModule),
explain.py, logs.py, and config/exc as PyTorch's.
"""

from __future__ import annotations

from . import config, exc
from .capture import graph_break
from .eval_frame import (
    OptimizedModule,
    ReplayStatus,
    disable,
    is_compiling,
    list_backends,
    replay_status,
    reset,
)
from .explain import ExplainOutput, explain

__all__ = [
    "config",
    "exc",
    "graph_break",
    "OptimizedModule",
    "disable",
    "is_compiling",
    "reset",
    "list_backends",
    "mark_dynamic",
    "mark_static",
    "explain",
    "ExplainOutput",
    "replay_status",
    "ReplayStatus",
]


def mark_dynamic(t, index, **kwargs) -> None:
    """Matches `torch._dynamo.mark_dynamic` in what it changes for dyngrad: nothing computed
    (dyngrad's guards make a size dynamic once it changes; see docs/compile.md)."""


def mark_static(t, index=None) -> None:
    """Matches `torch._dynamo.mark_static`: accepted; see `mark_dynamic`."""
