"""The nested (tuple / list / dict) arguments and results of the control-flow operators:
flattened to their leaves and rebuilt, and each result tensor marked with an operator's node.

# Note [Control flow in eager mode]
# PyTorch compiles `torch.cond` and `torch.while_loop` with Dynamo even in eager mode, and its
# results carry one node (CondAutogradOpBackward, WhileLoopAutogradOpBackward) that computes
# the gradients of the branch or loop it captured, tensors the functions close over included.
# dyngrad runs the functions as plain Python, recording their ops as usual, and passes each
# result through an identity Function of PyTorch's name: the same values, gradients (to
# operands and closed-over tensors alike) and grad_fn name; the graph below that node is the
# ops the functions ran. The other branch is not traced, so its outputs are not checked.
"""

from __future__ import annotations

from .._tensor import Tensor
from ..autograd.function import Function
from ..graph.grad_mode import state as grad_state

__all__ = ["leaves", "mark"]


def leaves(tree) -> list:
    """The leaves of nested tuples, lists and dicts, in order."""
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in leaves(item)]
    if isinstance(tree, dict):
        return [leaf for key in tree for leaf in leaves(tree[key])]
    return [tree]


def _rebuild(tree, new: list):
    if isinstance(tree, (tuple, list)):
        return type(tree)(_rebuild(item, new) for item in tree)
    if isinstance(tree, dict):
        return {key: _rebuild(value, new) for key, value in tree.items()}
    return new.pop(0)


def _identity_backward(ctx, *grads):
    return grads


def _identity_forward(ctx, *tensors):
    return tuple(t.view_as(t) for t in tensors)


def node_function(name: str) -> type:
    """An identity autograd Function named `name` (its node is `<name>Backward`)."""
    body = {
        "forward": staticmethod(_identity_forward),
        "backward": staticmethod(_identity_backward),
    }
    return type(name, (Function,), body)


def mark(result, op: type):
    """`result` with each tensor that has history passed through `op`'s node."""
    flat = leaves(result)
    marked = [i for i, t in enumerate(flat) if isinstance(t, Tensor) and t.requires_grad]
    if not marked or not grad_state.enabled:
        return result
    outputs = op.apply(*(flat[i] for i in marked))
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    for i, out in zip(marked, outputs):
        flat[i] = out
    return _rebuild(result, flat)
