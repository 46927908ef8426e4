"""`torch.autograd.graph`: the graph's public names, and dyngrad's views of a graph.

Nodes live in `dyngrad.graph` (a lower layer, so ops can record them); this module is the
namespace PyTorch users import them from (with the saved-tensor hooks), plus `describe`,
`print_graph` and `saved_bytes`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from .._handles import RemovableHandle
from .._tensor import Tensor
from ..graph.node import AccumulateGrad, GraphRoot, Node
from ..graph.saved import SavedOutput
from .gradient_edge import GradientEdge, get_gradient_edge
from .inspect_graph import render_compact, render_tree
from .inspect_graph import saved_bytes as _count_saved_bytes
from .multi_grad_hook import register_multi_grad_hook
from .mutation_on_saved import allow_mutation_on_saved_tensors
from .saved_tensors import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks

__all__ = [
    "Node",
    "AccumulateGrad",
    "GraphRoot",
    "RemovableHandle",
    "SavedOutput",
    "GradientEdge",
    "get_gradient_edge",
    "increment_version",
    "register_multi_grad_hook",
    "saved_tensors_hooks",
    "save_on_cpu",
    "disable_saved_tensors_hooks",
    "allow_mutation_on_saved_tensors",
    "describe",
    "print_graph",
    "saved_bytes",
]


def increment_version(tensor: Tensor | Iterable[Tensor]) -> None:
    """Matches `torch.autograd.graph.increment_version`: tell autograd a tensor was written
    in place behind its back (an inference tensor, which has no version, is left alone)."""
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        if not t.is_inference():
            t._version_counter.bump("increment_version")


def describe(tensor_or_node, file=None, *, params: dict | None = None, detail: bool = False) -> str:
    """A text picture of the backward graph under a tensor (or node, or a list of them).

    By default one node a line, leaves with their shape and dtype. `detail=True` draws a tree
    with each node's output shape and dtype and what it saved (names, shapes, bytes), and a
    total (see `saved_bytes`); `params` (name -> tensor) names the leaves. Printed to `file`
    if given. Deep graphs print in linear space: past 16 levels a line stops indenting and
    says its level, `[depth 17] MulBackward0`. *dyngrad only*.
    """
    text = (render_tree if detail else render_compact)(tensor_or_node, params)
    if file is not None:
        print(text, file=file)
    return text


def print_graph(tensor_or_node, params: dict | None = None, *, file=None) -> None:
    """Print `describe(..., detail=True)`: the tree with shapes, dtypes and saved bytes."""
    describe(
        tensor_or_node, file=file if file is not None else sys.stdout, params=params, detail=True
    )


def saved_bytes(tensor_or_node, by: str | None = None):
    """Bytes held by the graph's saved tensors: the total, or per "node" or per "module".

    Each array counts once however many nodes saved it; a saved view counts its whole buffer
    once (see Note [Saved bytes] in inspect_graph.py). *dyngrad only*.
    """
    return _count_saved_bytes(tensor_or_node, by)
