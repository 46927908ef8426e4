"""The one node of an out-of-place foreach call (`ForeachExpBackward0`): it runs the
per-element nodes the call recorded, as PyTorch's multi-output foreach node runs its
per-element formulas.

# Note [Foreach nodes]
# `_foreach_exp(xs)` computes each element with the per-element op (`x.exp()`), which records
# its own node (ExpBackward0) with its saved tensors, their version checks and its formulas.
# The call then records ONE node over all its inputs, in PyTorch's order (every tensor of the
# first list, then of the next; a single Tensor argument is one input), and hands each output
# to it as output i. That node keeps the per-element nodes (none is reachable otherwise) and,
# for each, which of its own inputs each per-element input is; backward runs the element's
# node on output i's gradient and sums what it gives into those inputs (a single Tensor
# argument gets every element's share). So the formulas are the per-element ops' own, once;
# under create_graph they record as they always do (a saved output is rebuilt with its
# per-element node as history, whose edges are this node's: double backward is exact). A
# per-element node knows, weakly, whose output i its output became (`_output_of`), so the
# error for a saved output changed in place names `ForeachExpBackward0`'s output i as PyTorch.
"""

from __future__ import annotations

import weakref

from ...graph import passes
from ...graph.node import SECOND_BACKWARD, Node
from ..table.nodes import freed_detail
from ..table.record import record

__all__ = ["ForeachNode", "node_class", "record_foreach"]

_CLASSES: dict = {}
# PyTorch's foreach add and sub save their input lists (their formulas read the inputs'
# dtypes), so a second backward through them is refused though their gradients read nothing
_KEEPING = ("ForeachAddBackward", "ForeachSubBackward")
_TORCH_NAMES = {"x": "self", "y": "other", "out": "result"}


class ForeachNode(Node):
    """The backward node of one out-of-place foreach call; one subclass per PyTorch name."""

    __slots__ = ("_parts", "_attrs", "_meta", "_n_outputs", "_freed_in")

    def apply(self, grads):
        if self._freed_in is not None:  # told as this node's, not an element's
            raise RuntimeError(SECOND_BACKWARD + freed_detail(self))
        results = [None] * len(self.next_functions)
        for part, g in zip(self._parts, grads):
            if g is None or part is None:
                continue
            node, slots = part
            element = node.apply((g,))
            for j, k in slots:
                grad = element[j]
                if grad is not None:
                    results[k] = grad if results[k] is None else results[k] + grad
        return tuple(results)

    _keeps_inputs = False

    def release(self) -> None:
        if self._keeps_inputs:
            self._freed_in = passes.current
        for part in self._parts:
            if part is not None:
                part[0].release()
                if getattr(part[0], "_saved", None) is None:  # it held buffers: now freed
                    self._freed_in = passes.current

    @property
    def _saved(self):
        # what the per-element nodes saved, as `result[1]`, `self[0]`... (for `saved_values`,
        # `saved_bytes` and describe()); None once backward freed them
        merged = {}
        for i, part in enumerate(self._parts):
            if part is None:
                continue
            saved = getattr(part[0], "_saved", None)
            if saved is None:
                return None
            for name, value in saved.items():
                merged[f"{_TORCH_NAMES.get(name, name)}[{i}]"] = value
        return merged


class NotImplementedForeach(ForeachNode):
    """A foreach overload PyTorch records without a derivative: backward raises its error."""

    __slots__ = ()
    _what: str

    def apply(self, grads):
        raise RuntimeError(f"derivative for {self._what} is not implemented")


def node_class(name: str, refused: str | None = None) -> type:
    """The node class called `name` (made once); `refused` names the op of a node whose
    backward raises PyTorch's "derivative ... is not implemented"."""
    key = (name, refused)
    cls = _CLASSES.get(key)
    if cls is None:
        if refused is None:
            body = {"__slots__": (), "_keeps_inputs": name.startswith(_KEEPING)}
            cls = type(name, (ForeachNode,), body)
        else:
            cls = type(name, (NotImplementedForeach,), {"__slots__": (), "_what": refused})
        _CLASSES[key] = cls
    return cls


def record_foreach(cls: type, inputs: tuple, outputs: list, owners: list) -> None:
    """Record one `cls` node over `inputs` (the call's tensors, PyTorch's order) and make it
    the history of every output; `owners[i]` lists the positions in `inputs` of element i's
    tensors. Each output's current node is the per-element node its op recorded (None where
    none of its inputs required grad); See Note [Foreach nodes]."""
    mask = 0
    for i, a in enumerate(inputs):
        if a._requires_grad:
            mask |= 1 << i
    node = object.__new__(cls)
    record(node, inputs, mask, plan=None)
    node._n_outputs = len(outputs)
    node._freed_in = None
    parts = []
    for i, out in enumerate(outputs):
        if out._requires_grad:
            element = out._grad_fn
            element.__dict__["_output_of"] = (weakref.ref(node), i)  # for its saved output
            parts.append(_part(node, element, owners[i]))
        else:
            parts.append(None)
        out._requires_grad = True
        out._grad_fn = node
        out._out_nr = i
    node._parts = parts


def _part(node, element, owned):
    # which of the foreach node's inputs each input of the element's node is, matched by edge
    # among the element's own tensors (`x * x` takes two inputs; their gradients sum alike)
    edges = node.next_functions
    slots = []
    taken: set = set()
    for j, (fn, nr) in enumerate(element.next_functions):
        if fn is None:
            continue
        matches = [k for k in owned if edges[k][0] is fn and edges[k][1] == nr]
        if not matches:  # a composite per-element op: a bug in the foreach table
            raise AssertionError(f"{element.name()} is not one node over its inputs")
        free = [k for k in matches if k not in taken]
        k = free[0] if free else matches[0]
        taken.add(k)
        slots.append((j, k))
    return element, tuple(slots)
