"""`CompiledFunctionBackward`: the one node a compiled call's outputs hang from.

# Note [One node per compiled call]
# As in PyTorch (AOTAutograd), an output of a compiled call that requires grad has a single
# node, `CompiledFunctionBackward`, whose edges lead to what the call read that requires grad:
# parameters, inputs, tensors made before the call. The ops the call ran were recorded as
# eager records them (See Note [Capture by running]); the node owns that captured graph and
# its backward runs it with the engine from the call's outputs to those edges, so gradients
# are eager's bit for bit. `describe`/`make_dot` can open it: `node.captured` lists the
# captured graph's output nodes. What it does not do (yet): replay the backward without
# per-node objects; the speed is eager's. Double backward through the node raises, as
# PyTorch's does with AOTAutograd.
"""

from __future__ import annotations

from .._tensor import Tensor, new_tensor
from ..autograd.engine import grad as autograd_grad
from ..autograd.gradient_edge import GradientEdge
from ..graph.grad_mode import state as grad_state
from ..graph.node import AccumulateGrad, Node

__all__ = ["CompiledFunctionBackward", "wrap_outputs"]


class CompiledFunctionBackward(Node):
    """The backward of a compiled call: its captured graph, run as one step."""

    _plain = False  # the engine runs it through the general path (it calls the engine itself)

    def __init__(self, outputs: list, edges: tuple) -> None:
        super().__init__(edges)
        self._n_outputs = len(outputs)
        self.captured = [t.grad_fn for t in outputs]
        self._outputs = outputs

    def apply(self, grads: tuple) -> tuple:
        if self._outputs is None:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved "
                "tensors after they have already been freed). Saved intermediate values of the "
                "graph are freed when you call .backward() or autograd.grad(). Specify "
                "retain_graph=True if you need to backward through the graph a second time or "
                "if you need to access saved tensors after calling backward."
            )
        if grad_state.enabled:
            raise RuntimeError(
                "torch.compile with aot_autograd does not currently support double backward"
                "\n(dyngrad: compile the first-order step only, or run this function eagerly "
                "for create_graph=True)"
            )
        pairs = [(t, g) for t, g in zip(self._outputs, grads) if g is not None]
        if not pairs or not self.next_functions:
            return (None,) * len(self.next_functions)
        inputs = [GradientEdge(node, nr) for node, nr in self.next_functions]
        return autograd_grad(
            [t for t, _ in pairs],
            inputs,
            [g for _, g in pairs],
            retain_graph=True,
            allow_unused=True,
        )

    def release(self) -> None:
        self._outputs = None


def wrap_outputs(result, start_seq: int):
    """`result` with each tensor the call made that requires grad re-hung from one
    CompiledFunctionBackward (its data shared, as PyTorch's graph outputs are new tensors)."""
    found: list = []
    _collect(result, start_seq, found)
    if not found:
        return result
    edges = _boundary([t.grad_fn for t in found], start_seq)
    node = CompiledFunctionBackward(found, edges)
    replaced = {id(t): new_tensor(t._data, True, node, i) for i, t in enumerate(found)}
    return _rebuild(result, replaced)


def _made_here(t, start_seq: int) -> bool:
    fn = t._grad_fn
    return fn is not None and t._base is None and fn._seq >= start_seq


def _collect(value, start_seq: int, found: list) -> None:
    if isinstance(value, Tensor):
        if _made_here(value, start_seq) and all(value is not f for f in found):
            found.append(value)
    elif type(value) in (tuple, list):
        for v in value:
            _collect(v, start_seq, found)
    elif type(value) is dict:
        for v in value.values():
            _collect(v, start_seq, found)


def _rebuild(value, replaced: dict):
    if isinstance(value, Tensor):
        return replaced.get(id(value), value)
    if type(value) in (tuple, list):
        return type(value)(_rebuild(v, replaced) for v in value)
    if type(value) is dict:
        return {k: _rebuild(v, replaced) for k, v in value.items()}
    return value


def _boundary(roots: list, start_seq: int) -> tuple:
    """The edges where the captured graph meets what existed before the call: leaves and
    nodes made earlier, in the order the walk meets them."""
    edges: list = []
    seen_edges: set = set()
    seen = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for edge in node.next_functions:
            child = edge[0]
            if child is None:
                continue
            if type(child) is AccumulateGrad or child._seq < start_seq:
                key = (id(child), edge[1])
                if key not in seen_edges:
                    seen_edges.add(key)
                    edges.append((child, edge[1]))
            else:
                stack.append(child)
    return tuple(edges)
