"""`torch._C`: the few of PyTorch's C-extension functions that Python code calls directly.

Only what maps onto dyngrad's own state; anything else is missing (see Note [torch alias]).
"""

from __future__ import annotations

import types

from .autograd.engine import current_task
from .autograd.gradient_edge import edge_of
from .autograd.graph import increment_version
from .autograd.special_nodes import DelayedError, UndefinedGrad
from .graph import grad_mode
from .graph.node import AccumulateGrad

__all__ = [
    "is_grad_enabled",
    "_set_grad_enabled",
    "_is_view_replay_enabled",
    "_set_view_replay_enabled",
    "_current_graph_task_id",
    "_will_engine_execute_node",
    "_increment_version",
    "_functions",
]

is_grad_enabled = grad_mode.is_grad_enabled
# the node classes PyTorch exposes for building nodes by hand
_functions = types.SimpleNamespace(
    UndefinedGrad=UndefinedGrad, DelayedError=DelayedError, AccumulateGrad=AccumulateGrad
)
_is_view_replay_enabled = grad_mode.is_view_replay_enabled


def _set_grad_enabled(mode: bool) -> None:
    grad_mode.state.enabled = bool(mode)


def _set_view_replay_enabled(mode: bool) -> None:
    grad_mode.state.view_replay = bool(mode)


def _current_graph_task_id() -> int:
    """The running backward pass's number, -1 outside backward."""
    task = current_task()
    return -1 if task is None else task.number


def _will_engine_execute_node(node) -> bool:
    """Whether the running backward pass runs `node` (a node or a GradientEdge)."""
    task = current_task()
    if task is None:
        raise RuntimeError(
            "_will_engine_execute_node should only be called during the backward pass"
        )
    if not hasattr(node, "next_functions"):
        node = edge_of(node)[0]
    return task.will_execute(node)


def _increment_version(tensors) -> None:
    increment_version(tensors)
