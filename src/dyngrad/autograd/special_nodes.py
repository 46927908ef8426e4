"""PyTorch's `torch._C._functions` nodes that Python code builds by hand: `UndefinedGrad`
(passes no gradient on; gradcheck's undefined-gradient check) and `DelayedError` (its `Error`
node raises when differentiated through; once_differentiable marks its results so)."""

from __future__ import annotations

from .._tensor import Tensor
from ..graph.node import Node
from ..ops.table.record import record

__all__ = ["UndefinedGrad", "UndefinedGradBackward", "DelayedError", "Error", "outputs_through"]


class UndefinedGradBackward(Node):
    """Hands an undefined gradient (None) to each input, whatever it receives."""

    def apply(self, grads):
        return (None,) * len(self.next_functions)


class Error(Node):
    """PyTorch's `Error` node: differentiating through it raises its message."""

    def __init__(self, message: str, keep: tuple = ()):
        self._message = message
        # an AccumulateGrad holds its leaf weakly (the leaf owns the node): leaves that have
        # no other owner (once_differentiable's, Note [Delayed error]) live with this node,
        # as they live with their AccumulateGrad nodes in PyTorch
        self._keep = keep

    def apply(self, grads):
        raise RuntimeError(self._message)


def outputs_through(node: Node, tensors: tuple) -> tuple:
    """`tensors`' values as the outputs of `node` (one per tensor, output_nr its position),
    with an edge to each input that requires grad; None stays None, as PyTorch's undefined
    tensors do. No input requiring grad: plain tensors, no node."""
    mask = 0
    for i, t in enumerate(tensors):
        if t is not None and t._requires_grad:
            mask |= 1 << i
    if not mask:
        return tuple(None if t is None else Tensor._wrap(t._data) for t in tensors)
    record(node, tensors, mask, plan=None)
    node._n_outputs = len(tensors)
    return tuple(
        None if t is None else Tensor._wrap(t._data, True, node, i) for i, t in enumerate(tensors)
    )


class UndefinedGrad:
    """Matches `torch._C._functions.UndefinedGrad()(*tensors)`: the same values, whose
    gradients reach their inputs as undefined (None)."""

    def __call__(self, *tensors):
        outs = outputs_through(UndefinedGradBackward(), tensors)
        return outs[0] if len(outs) == 1 else outs


class DelayedError:
    """Matches `torch._C._functions.DelayedError(message, num_inputs)(*tensors)`: the same
    values, differentiating through which raises `message`."""

    def __init__(self, message, num_inputs: int = 1):
        self.message = message.decode() if isinstance(message, bytes) else str(message)
        self.num_inputs = num_inputs

    def __call__(self, *tensors):
        outs = outputs_through(Error(self.message), tensors)
        return outs[0] if len(outs) == 1 else outs
