"""`torch.autograd.graph`: the graph's public names, and dyngrad's views of a graph.

Nodes live in `dyngrad.graph` (a lower layer, so ops can record them); this module is the
namespace PyTorch users import them from (with the saved-tensor hooks), plus `describe`,
`print_graph` and `saved_bytes`.
"""

from __future__ import annotations

import sys

from .._handles import RemovableHandle
from ..graph.node import AccumulateGrad, GraphRoot, Node
from ..graph.saved import SavedOutput
from .inspect_graph import render_compact, render_tree
from .inspect_graph import saved_bytes as _count_saved_bytes
from .mutation_on_saved import allow_mutation_on_saved_tensors
from .saved_tensors import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks

__all__ = [
    "Node",
    "AccumulateGrad",
    "GraphRoot",
    "RemovableHandle",
    "SavedOutput",
    "saved_tensors_hooks",
    "save_on_cpu",
    "disable_saved_tensors_hooks",
    "allow_mutation_on_saved_tensors",
    "describe",
    "print_graph",
    "saved_bytes",
]


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
