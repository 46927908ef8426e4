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
# argument gets every element's share). A per-element op that records a few nodes (norm with
# a dtype: the cast, then the norm) has them all kept and run newest first, each handing its
# gradients to the next or into the inputs. So the formulas are the per-element ops' own;
# under create_graph they record as they always do (a saved output is rebuilt with its
# per-element node as history, whose edges are this node's: double backward is exact). A
# per-element node knows, weakly, whose output i its output became (`_output_of`), so the
# error for a saved output changed in place names `ForeachExpBackward0`'s output i as PyTorch.
"""

from __future__ import annotations

import weakref

from ...graph import passes
from ...graph.node import SECOND_BACKWARD, AccumulateGrad, Node
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
            if g is not None and part is not None:
                _run_part(part, g, results)
        return tuple(results)

    _keeps_inputs = False

    def release(self) -> None:
        if self._keeps_inputs:
            self._freed_in = passes.current
        for part in self._parts:
            for element in part[0] if part is not None else ():
                element.release()
                if getattr(element, "_saved", None) is None:  # it held buffers: now freed
                    self._freed_in = passes.current

    @property
    def _saved(self):
        # what the per-element nodes saved, as `result[1]`, `self[0]`... (for `saved_values`,
        # `saved_bytes` and describe()); None once backward freed them
        merged = {}
        for i, part in enumerate(self._parts):
            for element in part[0] if part is not None else ():
                saved = getattr(element, "_saved", None)
                if saved is None:
                    return None
                for name, value in saved.items():
                    merged.setdefault(f"{_TORCH_NAMES.get(name, name)}[{i}]", value)
        return merged


def _run_part(part, g, results: list) -> None:
    # element i's nodes, newest first (an order in which each runs after all that feed it),
    # each handing its gradients on to another of them or into the foreach node's inputs
    elements, routes, root_nr = part
    buffers: list = [None] * len(elements)
    buffers[0] = {root_nr: g}
    for pos, element in enumerate(elements):
        got = buffers[pos]
        if not got:
            continue
        grads = element.apply(tuple(got.get(nr) for nr in range(element._n_outputs)))
        for route, grad in zip(routes[pos], grads):
            if route is None or grad is None:
                continue
            target, nr = route
            if target < 0:  # one of the foreach node's inputs
                results[nr] = grad if results[nr] is None else results[nr] + grad
                continue
            into = buffers[target]
            if into is None:
                into = buffers[target] = {}
            into[nr] = grad if nr not in into else into[nr] + grad


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


def record_foreach(cls: type, inputs: tuple, outputs: list, owners: list, start: int) -> None:
    """Record one `cls` node over `inputs` (the call's tensors, PyTorch's order) and make it
    the history of every output; `owners[i]` lists the positions in `inputs` of element i's
    tensors. Each output's current history is what its per-element op recorded (nodes
    numbered from `start` on; none where none of its inputs required grad); See Note
    [Foreach nodes]."""
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
            parts.append(_part(node, element, out._out_nr, owners[i], start))
        else:
            parts.append(None)
        out._requires_grad = True
        out._grad_fn = node
        out._out_nr = i
    node._parts = parts


def _part(node, root, root_nr: int, owned: list, start: int) -> tuple:
    # element i's nodes (one, or a few for a composite such as norm with a dtype) and where
    # each of their gradients goes: to another of them, or to the foreach node's input k,
    # matched by edge among the element's own tensors (`x * x` takes two inputs)
    edges = node.next_functions

    def outside(fn, nr):
        return [k for k in owned if edges[k][0] is fn and edges[k][1] == nr]

    elements, pending = {root: None}, [root]
    while pending:
        for fn, nr in pending.pop().next_functions:
            if fn is None or fn in elements or outside(fn, nr):
                continue
            if fn._seq < start or type(fn) is AccumulateGrad:  # a bug in the foreach table
                raise AssertionError(f"{root.name()} reaches past the foreach call's inputs")
            elements[fn] = None
            pending.append(fn)
    order = sorted(elements, key=lambda n: -n._seq)
    position = {n: pos for pos, n in enumerate(order)}
    taken: set = set()
    routes = []
    for element in order:
        route = []
        for fn, nr in element.next_functions:
            matches = outside(fn, nr) if fn is not None else ()
            if fn is None:
                route.append(None)
            elif matches:
                free = [k for k in matches if k not in taken]
                k = free[0] if free else matches[0]
                taken.add(k)
                route.append((-1, k))
            else:
                route.append((position[fn], nr))
        routes.append(tuple(route))
    return tuple(order), tuple(routes), root_nr
