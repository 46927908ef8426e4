"""Where gradients land: tensor hooks, retained `.grad` of non-leaves, and leaves' `.grad`.

The engine (engine.py) walks the graph; these are the steps it takes at a node's incoming
gradients and at each leaf's AccumulateGrad.
"""

from __future__ import annotations

import sys

import numpy as np

from .._tensor import Tensor
from ..graph.node import AccumulateGrad
from ..ops.creation.factories import empty_like
from ..ops.creation.write_order import dense_axes
from ..runtime import dtypes
from ..runtime.sparse_coo import SparseCOO, sum_gradients
from .hook_results import check_post_accumulate, checked_value
from .observers import observers

__all__ = ["accumulate_into", "accumulate_leaf", "tensor_pre_hooks"]


def tensor_pre_hooks(node, grads: list, task) -> list:
    """The hooks users put on the tensors whose gradients `grads` are (`Tensor.register_hook`),
    then `retain_grad`'s, which sees the gradient after them, as PyTorch 2's."""
    if type(node) is AccumulateGrad:  # a leaf's hooks live on the leaf
        variable = node.variable
        if variable is not None and variable._hooks and grads[0] is not None:
            grads[0] = _run_hooks(variable._hooks, grads[0])
        return grads
    if node._tensor_hooks:
        # a non-leaf's hooks run whenever its node runs, with None where the pass brought no
        # gradient for that output (x.unbind()[0]'s hook during x.unbind()[1].backward()), as
        # PyTorch's tensor pre-hooks see an undefined gradient
        for nr, hooks in node._tensor_hooks.items():
            grads[nr] = _run_hooks(hooks, grads[nr])
    if node._retains:
        for nr, ref in node._retains.items():
            tensor = ref()
            if tensor is not None and grads[nr] is not None:
                _retain(tensor, grads[nr])
    return grads


def _run_hooks(hooks: dict, g: Tensor) -> Tensor:
    for hook in tuple(hooks.values()):
        result = hook(g)
        if result is not None:
            g = checked_value(hook, g, result)
    return g


def _retain(tensor: Tensor, g: Tensor) -> None:
    # PyTorch's retains_grad hook: a clone (recorded under create_graph), then out-of-place sums
    if tensor._grad is None:
        tensor._grad = g.clone()
    else:
        tensor._grad = tensor._grad + g


def accumulate_leaf(task, node: AccumulateGrad, g) -> None:
    """AccumulateGrad's own step: `.grad += g`, then the leaf's post-accumulate hooks."""
    if g is None:
        return
    variable = node.variable
    if variable is None:  # the leaf is gone: nobody can read its gradient
        return
    watchers = observers.leaves
    for watcher in watchers:
        watcher.leaf_accumulating(variable, g)
    # a gradient someone else holds (a hook stashed it) is copied, as PyTorch's use count
    held = sys.getrefcount(g) > _UNHELD
    accumulate_into(variable, g, task.create_graph, held or not task.adoptable(g))
    for watcher in watchers:
        watcher.leaf_accumulated(variable)


def _references_to_an_unheld_gradient() -> int:
    # what sys.getrefcount sees in accumulate_leaf of a gradient that only the engine's
    # buffer holds: the buffer's slot, the argument, getrefcount's own argument
    def receive(g) -> int:
        return sys.getrefcount(g)

    slot = [object()]
    return receive(slot[0])


_UNHELD = _references_to_an_unheld_gradient()


def _in_layout_of(leaf: np.ndarray, g: np.ndarray, only_if_differs: bool = False) -> np.ndarray:
    # PyTorch's layout contract for a leaf's .grad: the leaf's memory order when it is
    # non-overlapping and dense (channels_last stays channels_last), else row-major
    axes = dense_axes(leaf)  # None: row-major (C order, or memory with gaps)
    if only_if_differs and (g.flags.c_contiguous if axes is None else g.strides == leaf.strides):
        return g
    if axes is None:
        return np.array(g, order="C", copy=True)
    out = np.empty_like(leaf, dtype=g.dtype)  # order "K": the leaf's memory order
    out[...] = g
    return out


def accumulate_into(var: Tensor, g: Tensor, create_graph: bool, shared: bool) -> None:
    """Add a gradient into `var.grad` (in place unless create_graph); `shared` means `g` may
    be seen elsewhere, so it is copied rather than adopted (Note [Gradient buffer ownership])."""
    if var._grad_fn is None:  # a leaf's gradient takes its grad_dtype (None: any)
        if "_grad_dtype" in var.__dict__:
            dtype = var._grad_dtype
            if dtype is not None and g.dtype is not dtype:
                g = g.to(dtype)
        elif g._data.dtype != var._data.dtype:
            g = g.to(dtypes.from_numpy_dtype(var._data.dtype))
    current = var._grad
    if current is None:
        if create_graph:  # a copy with history, as PyTorch's (CopyBackwards), never `g` itself
            var._grad = empty_like(g).copy_(g)
        else:
            data = g._data
            if shared or data.base is not None or not data.flags.writeable:
                data = _in_layout_of(var._data, data)
            elif not data.flags.c_contiguous or not var._data.flags.c_contiguous:
                data = _in_layout_of(var._data, data, only_if_differs=True)
            var._grad = Tensor._wrap(data)
    elif create_graph or current._requires_grad:
        # (a sparse sum takes the dense side first, as PyTorch's add)
        var._grad = g + current if type(current._data) is SparseCOO else current + g
    else:
        data = current._data
        if not data.flags.writeable or type(g._data) is SparseCOO:  # (sparse is never)
            current._data = sum_gradients(data, g._data)
        else:
            data += g._data
        current._version_counter.bump("AccumulateGrad")
    if var._post_hooks:
        for hook in tuple(var._post_hooks.values()):
            check_post_accumulate(hook, var, hook(var))
