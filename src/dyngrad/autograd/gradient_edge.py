"""`GradientEdge`: a (node, output_nr) place in the graph where a gradient flows, usable in
`backward()`/`grad()` in place of a tensor, as PyTorch's `torch.autograd.graph.GradientEdge`.
"""

from __future__ import annotations

from typing import NamedTuple

from .._tensor import Tensor
from ..graph.node import AccumulateGrad, Node
from ..ops.table.record import gradient_edge

__all__ = ["GradientEdge", "get_gradient_edge", "as_sequence", "edge_of", "output_meta"]


class GradientEdge(NamedTuple):
    """Matches `torch.autograd.graph.GradientEdge`."""

    node: Node
    output_nr: int
    # PyTorch's token keeps a C++ graph alive; a dyngrad node holds its graph itself
    ownership_token: Node | None = None


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """Matches `torch.autograd.graph.get_gradient_edge`: where `tensor`'s gradient is
    computed; `grad(loss, get_gradient_edge(x))` equals `grad(loss, x)`, even after `x` is
    written in place or replaced."""
    if not tensor._requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require "
            "gradients"
        )
    node, output_nr = gradient_edge(tensor)
    if type(node) is not AccumulateGrad:  # for a root's implicit gradient: See output_meta
        node.__dict__.setdefault("_edge_meta", {})[output_nr] = (
            tensor._data.shape,
            tensor.dtype,
            tensor.device,
        )
    return GradientEdge(node, output_nr)


def as_sequence(x) -> tuple | None:
    """Tensors or edges as a tuple: one tensor, one edge, or a sequence of them."""
    if x is None:
        return None
    if isinstance(x, (Tensor, GradientEdge)):
        return (x,)
    return tuple(x)


def edge_of(x):
    """The (node, output_nr) of a tensor or an edge."""
    if isinstance(x, GradientEdge):
        return (x.node, x.output_nr)
    return gradient_edge(x)


def output_meta(edge: GradientEdge):
    """(shape, dtype, device) of the gradient that flows into `edge`, or None if unknown."""
    node = edge.node
    if type(node) is AccumulateGrad:
        leaf = node.variable
        return None if leaf is None else (leaf._data.shape, leaf.dtype, leaf.device)
    known = node.__dict__.get("_edge_meta")
    return None if known is None else known.get(edge.output_nr)
