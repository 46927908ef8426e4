"""`CompiledFunctionBackward`: the one node a compiled call's outputs hang from.

# Note [One node per compiled call]
# As in PyTorch (AOTAutograd), an output of a compiled call that requires grad has a single
# node, `CompiledFunctionBackward`, whose edges lead to what the call read that requires grad:
# parameters, inputs, tensors made before the call. The ops the call ran were recorded as
# eager records them (See Note [Capture by running]); the node owns that captured graph.
# `describe`/`make_dot` can open it: `node.captured` lists the captured graph's output nodes.
# Double backward through the node raises, as PyTorch's does with AOTAutograd.

# Note [Compiled backward]
# The node's backward is the captured graph run as one precomputed program, not an engine
# pass: no dependency walk, no ready heap, no per-node buffer bookkeeping beyond a list. The
# captured nodes run in the order the engine would run them: the newest ready node (all its
# consumers in the graph have run) first. That is mostly decreasing sequence number, but not
# always: a view's node rebuilt after its base was written in place is newer than the op
# that read the view and feeds it (`v = y[0]; y.relu_(); v * w`). Each runs through the
# same `apply` the engine calls, with gradients summed by the engine's own rule
# (`sum_gradient`, in the same order):
# so gradients are eager's bit for bit. Saved tensors are freed as the engine frees them
# (unless the pass retains the graph). Whatever the program does not model goes through the
# engine instead, unchanged: a captured node with hooks or a retained grad (`_plain` is
# False), anomaly mode, a doctor watching backward nodes, or a captured node that the pass
# also reaches from outside the call (a tensor made in the call and kept, used after it):
# the engine then runs the captured graph as a pass of its own that keeps it, and the outer
# pass runs that node once more on the gradient from outside, as PyTorch's graph, where the
# kept tensor is one more output of the compiled graph, sums both.
"""

from __future__ import annotations

import heapq
import itertools
import operator

from .._tensor import Tensor, new_tensor
from ..autograd.engine import current_task, wrong_count
from ..autograd.engine import grad as autograd_grad
from ..autograd.gradient_edge import GradientEdge
from ..autograd.graph_task import sum_arrays
from ..autograd.observers import observers
from ..graph import anomaly_mode as anomaly
from ..graph.grad_mode import state as grad_state
from ..graph.node import SECOND_BACKWARD, AccumulateGrad, Node
from ..ops.table import record as recording
from ..ops.table.nodes import OpNode
from ..ops.table.record import gradient_edge

__all__ = [
    "CompiledFunctionBackward",
    "wrap_outputs",
    "boundary",
    "runner_of",
    "tensor_of",
    "array_of",
    "plan_of",
    "run_plan",
    "newest_first",
    "rebuild",
]


_plain = operator.attrgetter("_plain")  # (hooks or retain_grad on a captured node: False)


def newest_first(nodes) -> list:
    """Captured nodes in the order the engine would run them (See Note [Compiled backward]):
    the newest node whose consumers in the graph have all run, each in turn."""
    members = {id(n): n for n in nodes}
    waiting = dict.fromkeys(members, 0)  # consumers in the graph not yet run
    for n in nodes:
        for child, _ in n.next_functions:
            if child is not None and id(child) in members:
                waiting[id(child)] += 1
    tie = itertools.count()  # (ties never compare the nodes themselves)
    ready = [(-n._seq, next(tie), n) for n in nodes if not waiting[id(n)]]
    heapq.heapify(ready)
    order = []
    while ready:
        _, _, n = heapq.heappop(ready)
        order.append(n)
        for child, _ in n.next_functions:
            key = id(child)
            if child is not None and key in members:
                waiting[key] -= 1
                if not waiting[key]:
                    heapq.heappush(ready, (-child._seq, next(tie), child))
    return order


class CompiledFunctionBackward(Node):
    """The backward of a compiled call: its captured graph, run as one program."""

    def __init__(self, outputs: list, edges: tuple, segment: list, roots=None) -> None:
        super().__init__(edges)
        self._n_outputs = len(outputs)
        if roots is None:
            roots = [gradient_edge(t) for t in outputs]  # (a stale view's, rebuilt)
        self._roots = roots
        self.captured = [fn for fn, _ in self._roots]
        self._outputs = outputs
        self._segment = segment  # the captured graph's nodes

    def apply(self, grads: tuple) -> tuple:
        if self._outputs is None:
            raise RuntimeError(SECOND_BACKWARD)
        if grad_state.enabled:
            raise RuntimeError(
                "torch.compile with aot_autograd does not currently support double backward"
                "\n(dyngrad: compile the first-order step only, or run this function eagerly "
                "for create_graph=True)"
            )
        if not self.next_functions or all(g is None for g in grads):
            return (None,) * len(self.next_functions)
        order, plan = self._order_and_plan()
        if anomaly.state.enabled or observers.nodes or not all(map(_plain, order)):
            return self._through_engine(grads)
        task = current_task()
        if task is not None:
            # a captured node this pass also reaches from outside the call (a tensor the call
            # stored somewhere, used after it): the engine runs that node too, on the gradient
            # from outside, so the program must leave it in place (See Note [Compiled backward])
            # (the pass's nodes are looked up among the captured ones: usually far fewer)
            members = self._members(order)
            if any(node in members for node in task.dependencies):
                return self._through_engine(grads)
        release = task is not None and not task.keep_graph and self._releases()
        return self._run(plan, grads, release)

    def _members(self, order: list):
        return set(order)  # (a replay's node keeps its own)

    def _run(self, plan: tuple, grads: tuple, release: bool) -> tuple:
        return run_plan(plan, grads, len(self.next_functions), release)

    def _order_and_plan(self) -> tuple:
        # the captured nodes, newest first, and their program (a replay's node keeps its own)
        order = newest_first(self._segment)
        outside = {edge: i for i, edge in enumerate(self.next_functions)}
        return order, plan_of(order, self._roots, outside)

    def _releases(self) -> bool:
        return True  # a replay's node keeps its nodes for the next replay (replay.py)

    def _through_engine(self, grads: tuple) -> tuple:
        # the captured graph as an engine pass of its own, which runs hooks and watchers
        pairs = [(t, g) for t, g in zip(self._outputs, grads) if g is not None]
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
        self._segment = self._roots = ()


def plan_of(order: list, roots: list, outside: dict) -> tuple:
    """The compiled backward's program (See Note [Compiled backward]) with its lookups done:
    for each node (newest first) its array runner and where each of its gradients goes (a
    node's index and input slot, or, negative, the index of an edge leaving the graph); and
    the slot each output's gradient enters by."""
    at = {node: i for i, node in enumerate(order)}
    steps = []
    for node in order:
        routes = []
        for edge in node.next_functions:
            child = edge[0]
            if child is None:
                routes.append(None)
            elif child in at:
                routes.append((at[child], edge[1], child._n_outputs))
            else:  # leaves the captured graph: one of the compiled node's own edges
                routes.append((-1 - outside[edge], 0, 0))
        cls = type(node)
        steps.append((node, *(_runners[cls] if cls in _runners else runner_of(cls)), tuple(routes)))
    return steps, [(at[node], nr, node._n_outputs) for node, nr in roots]


def run_plan(plan: tuple, grads: tuple, n_outside: int, release: bool) -> tuple:
    """Run a compiled backward's program on the gradients of its outputs: the gradients of
    the edges that leave it. Gradients travel as arrays, summed by the engine's rule."""
    steps, root_slots = plan
    buffers: list = [None] * len(steps)
    results: list = [None] * n_outside
    owned: set = set()  # the sums made here (See Note [Gradient buffer ownership])
    seen: dict = {}  # id(array) -> the tensor that holds it: identity is kept
    on_arrays = recording.observer is None or not recording.observe_backward
    for (i, nr, n), g in zip(root_slots, grads):
        buffer = buffers[i]
        if buffer is None:
            buffer = buffers[i] = [None] * n
        if g is not None:
            data = g._data
            seen[id(data)] = g
            current = buffer[nr]
            buffer[nr] = data if current is None else sum_arrays(current, data, owned)
    for i, (node, runner, single, routes) in enumerate(steps):
        buffer = buffers[i]
        if buffer is None:
            continue  # no gradient reached it: the engine would not run it either
        buffers[i] = None
        if owned:
            for g in buffer:
                owned.discard(id(g))  # handed to the node, which may pass it on as is
        if buffer[0] is None and node._needs_grads and all(g is None for g in buffer):
            outputs = None
        else:
            outputs = None
            if runner is not None and on_arrays and node._saved is not None:
                outputs = runner(node, buffer[0] if single else tuple(buffer))
            if outputs is None:  # the node's own apply, on tensors
                outputs = node.apply(tuple(tensor_of(g, seen) for g in buffer))
                if len(outputs) != len(node.next_functions):
                    wrong_count(node, outputs)
                outputs = [array_of(t, seen) for t in outputs]
        if release:
            node.release()
        if not outputs:
            continue
        for route, g in zip(routes, outputs):
            if route is None or g is None:
                continue
            j, nr, n = route
            if j < 0:  # leaves the captured graph
                k = -1 - j
                current = results[k]
                results[k] = g if current is None else sum_arrays(current, g, owned)
                continue
            buffer = buffers[j]
            if buffer is None:
                buffer = buffers[j] = [None] * n
            current = buffer[nr]
            buffer[nr] = g if current is None else sum_arrays(current, g, owned)
    return tuple(tensor_of(g, seen) for g in results)


# node class -> (its backward on arrays or None (it runs on tensors), whether its row has one
# output: a multi-output or variadic row's kernel takes a tuple of gradients, even of one)
_runners: dict = {}


def runner_of(cls) -> tuple:
    """A node class's backward on arrays: its own `apply_on_arrays(node, gd)` if it has one,
    else its op row's array kernel, unless the class changes what `apply` does."""
    runner = None
    if issubclass(cls, OpNode):
        runner = getattr(cls, "apply_on_arrays", None)
        if runner is None and cls.apply is OpNode.apply:
            backward = cls._op.array_backward
            runner = None if backward is None else backward.on_arrays
    found = _runners[cls] = (runner, runner is not None and cls._op.n_outputs == 1)
    return found


def tensor_of(array, seen: dict):
    # the tensor of a gradient array: the one it came in, else a new one, kept for next time
    if array is None:
        return None
    t = seen.get(id(array))
    if t is None:
        t = seen[id(array)] = Tensor._wrap(array)
    return t


def array_of(t, seen: dict):
    if t is None:
        return None
    data = t._data
    seen[id(data)] = t
    return data


def wrap_outputs(result, start_seq: int):
    """`result` with each tensor the call made that requires grad re-hung from one
    CompiledFunctionBackward (its data shared, as PyTorch's graph outputs are new tensors).

    A new output keeps the version counter of the tensor it stands for, so that an in-place
    change of it is seen by the captured nodes that saved that tensor (or its base), as in
    eager: the backward then raises "modified by an inplace operation" instead of using the
    changed values. A view the call returns is an output too when its base was made in the
    call (a model's last `reshape`) and is not returned itself; a view of an input, or of a
    returned tensor, keeps its eager history (PyTorch regenerates such aliases)."""
    found: list = []
    _collect(result, start_seq, found)
    found = [t for t in found if t._base is None or all(t._base is not f for f in found)]
    if not found:
        return result
    edges, segment = boundary([gradient_edge(t)[0] for t in found], start_seq)
    node = CompiledFunctionBackward(found, edges, segment)
    replaced = {}
    for i, t in enumerate(found):
        out = replaced[id(t)] = new_tensor(t._data, True, node, i)
        out._version_counter = t._version_counter
    return rebuild(result, lambda t: replaced.get(id(t), t))


def _made_here(t, start_seq: int) -> bool:
    fn = t._grad_fn
    if fn is None or fn._seq < start_seq:
        return False
    base = t._base
    if base is None:
        return True
    fn = base._grad_fn  # a view: an output only if the call made its base too
    return fn is not None and fn._seq >= start_seq


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


def rebuild(value, swap):
    """`value` (a tensor, or tuples, lists and dicts of them) with each tensor `swap(tensor)`."""
    if isinstance(value, Tensor):
        return swap(value)
    if type(value) in (tuple, list):
        return type(value)(rebuild(v, swap) for v in value)
    if type(value) is dict:
        return {k: rebuild(v, swap) for k, v in value.items()}
    return value


def boundary(roots: list, start_seq: int) -> tuple:
    """The edges where the captured graph meets what existed before the call (leaves and
    nodes made earlier, in the order the walk meets them), and the captured graph's nodes."""
    segment = dict.fromkeys(roots)  # (dicts: sets that keep their order)
    edges: dict = {}
    stack = list(segment)
    while stack:
        for edge in stack.pop().next_functions:
            child = edge[0]
            if child is None or child in segment:
                continue
            if child._seq < start_seq or type(child) is AccumulateGrad:
                edges[edge] = None
            else:
                segment[child] = None
                stack.append(child)
    return tuple(edges), list(segment)
