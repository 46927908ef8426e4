"""Transform levels: the fresh inputs a grad/vjp/jvp call differentiates, and what outlives it.

# Note [Transform levels]
# torch.func wraps tensors once per nested transform; dyngrad records one graph for all of
# them instead. Each grad/vjp/jvp call opens a `Level`: its differentiable inputs become fresh
# tensors (a new leaf made from the input or, when the input already requires grad, a
# differentiable alias of it, so an enclosing level or the user's own autograd still sees
# through). A result keeps its graph only when that graph reaches a leaf that outlives the
# level: a leaf of the user's, or a fresh leaf of a level still open around it. So
# `grad(grad(f))` differentiates the inner gradient, a function closing over a parameter that
# requires grad returns results that require grad, as in torch, and a top-level transform's
# results don't require grad. Leaves of closed levels count as constants: they only carry
# graphs of work that is done. As in torch (its NOTE [grad and vjp interaction with no_grad]),
# grad mode is on inside a level whatever it was outside, and a level entered with grad mode
# off returns detached results.
"""

from __future__ import annotations

import threading
import weakref

from .._tensor import Tensor
from ..graph.grad_mode import enable_grad, is_grad_enabled
from ..graph.node import AccumulateGrad
from .pytree import tree_map

__all__ = ["Level", "reaches_outer"]


class _Open(threading.local):
    def __init__(self):
        self.levels: list[Level] = []


_open = _Open()
# Every fresh leaf any level made, by id; a leaf drops out when it dies, so ids stay unique.
_fresh_leaves: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


class Level:
    """One transform call: a context that turns grad mode on and owns its fresh leaves."""

    __slots__ = ("leaves", "grad_enabled", "_mode")

    def __enter__(self) -> Level:
        self.grad_enabled = is_grad_enabled()
        self.leaves: dict[int, Tensor] = {}
        self._mode = enable_grad()
        self._mode.__enter__()
        _open.levels.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _open.levels.remove(self)
        self._mode.__exit__(*exc)

    def new_leaf(self, tensor: Tensor) -> Tensor:
        """Register a leaf this level made, so that nothing outside mistakes it for an input."""
        self.leaves[id(tensor)] = tensor
        _fresh_leaves[id(tensor)] = tensor
        return tensor

    def differentiable(self, x) -> Tensor:
        """The fresh tensor this level differentiates in place of the input `x`."""
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if x.requires_grad:  # an alias keeps the graph of an enclosing level or the user's
            return x.view_as(x)
        return self.new_leaf(x.detach().requires_grad_())

    def keeps_graph(self, tensors) -> bool:
        """Whether gradients of `tensors` need a graph: some reach a leaf outliving this level."""
        return self.grad_enabled and any(reaches_outer(t, self) for t in tensors)

    def unwrap(self, tensor) -> Tensor:
        """`tensor` as this level returns it: detached unless it reaches an outer leaf."""
        if not isinstance(tensor, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(tensor)}")
        if self.grad_enabled and reaches_outer(tensor, self):
            return tensor
        return tensor.detach()

    def unwrap_tree(self, tree):
        return tree_map(self.unwrap, tree)


def _outlives(leaf: Tensor, level: Level) -> bool:
    if _fresh_leaves.get(id(leaf)) is not leaf:
        return True  # the user's own leaf
    return any(id(leaf) in other.leaves for other in _open.levels if other is not level)


def reaches_outer(tensor: Tensor, level: Level) -> bool:
    """Whether `tensor`'s graph reaches a leaf that requires grad and outlives `level`."""
    if not tensor.requires_grad:
        return False
    if tensor.grad_fn is None:
        return _outlives(tensor, level)
    seen: set[int] = set()
    stack = [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            leaf = node.variable
            if leaf is not None and _outlives(leaf, level):
                return True
            continue
        stack.extend(edge[0] for edge in node.next_functions)
    return False
