"""Where gradients land: sums in a node's input buffer, tensor hooks, and `.grad`.

The engine (engine.py) walks the graph; these are the steps it takes at each node's inputs
and at each leaf. The doctor wraps `accumulate_into` to see every gradient a parameter gets.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..backend import dtypes

__all__ = ["accumulate_into", "capture", "run_leaf", "run_tensor_hooks", "sum_into"]


def sum_into(current: Tensor, g: Tensor, create_graph: bool, summed: set) -> Tensor:
    """Add one more gradient into a node's input buffer.

    A buffer that already holds a sum this pass made belongs to the engine alone, so later
    gradients are added into it in place: a weight used at every step of an RNN collects its
    gradient without a fresh array per step. With create_graph the sum must be recorded.
    """
    if create_graph:
        return current + g
    data = current._data
    if id(current) in summed and data.dtype == g._data.dtype and data.shape == g._data.shape:
        np.add(data, g._data, out=data)
        return current
    array = data + g._data
    total = Tensor._wrap(array if type(array) is np.ndarray else np.array(array))  # 0-d
    summed.add(id(total))
    return total


def run_leaf(node, buf, targets, captured, to_leaves, needed, create_graph, dispatched):
    """An AccumulateGrad node: the leaf's hooks, a captured input, then `.grad += g`."""
    g = buf[0]
    variable = node.variable
    if variable is not None and variable._hooks and g is not None:
        buf[0] = g = run_leaf_hooks(variable, g)
    if targets is not None:
        capture(node, buf, targets, captured)
    if to_leaves and g is not None and (needed is None or node in needed):
        if variable is not None:  # else the leaf is gone: nobody can read its gradient
            accumulate_into(variable, g, create_graph, dispatched.get(id(g), 0) > 1)


def capture(node, buf, targets, captured) -> None:
    # autograd.grad / backward(inputs=): keep the gradient flowing into a requested input
    for nr, g in enumerate(buf):
        for index in targets.get((node, nr), ()):
            captured[index] = g


def run_leaf_hooks(variable: Tensor, g: Tensor) -> Tensor:
    for hook in tuple(variable._hooks.values()):
        result = hook(g)
        if result is not None:
            g = result
    return g


def run_tensor_hooks(node, buf: list, create_graph: bool) -> None:
    hooks = node._tensor_hooks
    if hooks:
        for nr, fns in hooks.items():
            for hook in tuple(fns.values()):
                if buf[nr] is not None:
                    result = hook(buf[nr])
                    if result is not None:
                        buf[nr] = result
    if node._retains:  # retain_grad runs after the other hooks, as in PyTorch 2
        for nr, ref in node._retains.items():
            tensor = ref()
            if tensor is not None and buf[nr] is not None:
                retain(tensor, buf[nr], create_graph)


def retain(tensor: Tensor, g: Tensor, create_graph: bool) -> None:
    if tensor._grad is None:
        tensor._grad = g if create_graph else Tensor._wrap(g._data.copy())
    else:
        tensor._grad = tensor._grad + g if create_graph else Tensor._wrap(tensor._grad._data
                                                                          + g._data)


def accumulate_into(var: Tensor, g: Tensor, create_graph: bool, shared: bool) -> None:
    """AccumulateGrad: add a gradient into `var.grad` (in place unless create_graph)."""
    if g._data.dtype != var._data.dtype and var._fn is None:
        g = g.to(dtypes.from_numpy_dtype(var._data.dtype))
    current = var._grad
    if current is None:
        if create_graph:  # a copy with history, as PyTorch's (CopyBackwards), never `g` itself
            from ..ops.creation import empty_like

            var._grad = empty_like(g).copy_(g)
        else:
            data = g._data
            if shared or data.base is not None or not data.flags.writeable:
                data = data.copy()
            var._grad = Tensor._wrap(data)
    elif create_graph or current._rg:
        var._grad = current + g
    else:
        data = current._data
        if not data.flags.writeable:
            current._data = data + g._data
        else:
            data += g._data
        current._vc.bump("AccumulateGrad")
    if var._post_hooks:
        for hook in tuple(var._post_hooks.values()):
            hook(var)
