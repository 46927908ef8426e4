"""PyTorch's `torch._C._functions` nodes that Python code builds by hand: `UndefinedGrad`
(passes no gradient on; gradcheck's undefined-gradient check) and `DelayedError` (raises
when differentiated through)."""

from __future__ import annotations

from .._tensor import Tensor
from ..graph.node import Node
from ..ops.table.record import gradient_edge
from .function import Error

__all__ = ["UndefinedGrad", "UndefinedGradBackward", "DelayedError"]


class UndefinedGradBackward(Node):
    """Hands an undefined gradient (None) to each input, whatever it receives."""

    def apply(self, grads):
        return (None,) * len(self.next_functions)


def _outputs_through(make_node, tensors):
    edges = tuple(gradient_edge(t) if t._requires_grad else (None, 0) for t in tensors)
    node = make_node(edges)
    needed = any(t._requires_grad for t in tensors)
    outs = tuple(
        Tensor._wrap(t._data, needed, node if needed else None, i) for i, t in enumerate(tensors)
    )
    return outs[0] if len(outs) == 1 else outs


class UndefinedGrad:
    """Matches `torch._C._functions.UndefinedGrad()(*tensors)`: the same values, whose
    gradients reach their inputs as undefined (None)."""

    def __call__(self, *tensors):
        return _outputs_through(UndefinedGradBackward, tensors)


class DelayedError:
    """Matches `torch._C._functions.DelayedError(message, num_inputs)(*tensors)`: the same
    values, differentiating through which raises `message`."""

    def __init__(self, message, num_inputs: int = 1):
        self.message = message.decode() if isinstance(message, bytes) else str(message)
        self.num_inputs = num_inputs

    def __call__(self, *tensors):
        return _outputs_through(lambda edges: Error(edges, self.message), tensors)
