"""One backward pass (PyTorch's GraphTask): dependencies, gradient buffers, what runs, what is
captured."""

from __future__ import annotations

import heapq

import numpy as np

from .._tensor import Tensor
from ..graph.node import GraphRoot
from ..runtime.sparse_coo import SparseCOO, sum_gradients

__all__ = ["GraphTask", "sum_gradient", "sum_arrays"]

# Note [Gradient buffer ownership]
# A node's input buffer has one slot per forward output of the node. The first gradient to
# arrive for a slot is stored as it is, without a copy: formulas usually return fresh
# tensors, but some hand their incoming gradient on unchanged (AddBackward0 returns `g` to
# both inputs), and a hook may return a tensor the user still holds. So a gradient in a
# buffer may be seen elsewhere, and the engine never writes into it.
# When a second gradient arrives for a slot, the engine makes the sum, a new tensor that
# nobody else can see; it is *owned*, and further gradients for that slot are added into it
# in place (a weight used at every step of an RNN collects its gradient in one array). Once
# a buffer is handed to its node, the node may pass it on as is, so ownership ends there.
# AccumulateGrad adopts a gradient as `.grad` without a copy only if nothing else holds the
# tensor, which is PyTorch's use count: accumulate.py counts its references, and every other
# buffer it sits in, every hook that kept it, holds one (of two leaves handed one gradient
# the first copies and the second adopts, as PyTorch's last holder steals); and only if it
# is not a view of another array, is writable, and is not a root gradient from the user
# (`given`, by id: a stale id can only make an adoption copy, never make one unsafe).
# With create_graph the sums are recorded ops and nothing is ever written in place.
# `owned` is keyed by the sum's array's id (`sum_arrays`, which the compiled backward
# shares); an owned sum stays in its buffer until `take`, which ends its ownership, so no
# owned key goes stale.


class GraphTask:
    """The state of one backward pass; `run` in engine.py drives it."""

    __slots__ = (
        "keep_graph",
        "create_graph",
        "dependencies",
        "buffers",
        "ready",
        "needed",
        "captures",
        "captured",
        "given",
        "owned",
        "number",
        "callbacks",
        "root",
    )

    def __init__(self, roots, grads, keep_graph: bool, create_graph: bool, number: int):
        self.keep_graph = keep_graph
        self.create_graph = create_graph
        self.buffers: dict = {}
        self.ready: list = []
        self.needed = None  # None: every node runs; else the nodes on a path to a target
        self.captures: dict = {}  # node -> [(output_nr, index in `captured`)]
        self.captured: list = []
        self.given = None  # id of the root gradient the caller gave (never adopted)
        self.owned: set = set()
        self.number = number
        self.callbacks: list = []  # run when the pass is done (queue_callback)
        self.root = root = _graph_root(roots, grads)
        self.dependencies = _dependencies(root)
        self.buffers[root] = root_buffer = [None] * root._n_outputs
        if type(root) is GraphRoot:
            root_buffer[0] = True  # GraphRoot holds its gradients; the slot only wakes it
        else:
            root_buffer[roots[0][1]] = grads[0]
            self.given = id(grads[0])  # See Note [Gradient buffer ownership]
        heapq.heappush(self.ready, (-root._seq, id(root), root))

    # ---- which nodes run ------------------------------------------------------------------
    def set_targets(self, edges: list, accumulate: bool) -> None:
        """Run only what reaches `edges`; capture their gradients, or (backward(inputs=))
        run their nodes."""
        self.captured = [None] * len(edges)
        targets = set()
        for index, (node, nr) in enumerate(edges):
            targets.add(node)
            if not accumulate:
                self.captures.setdefault(node, []).append((nr, index))
        self.needed = _needed(next(iter(self.buffers)), targets, accumulate)

    # ---- buffers ----------------------------------------------------------------------------
    def take(self, node) -> list:
        """The node's input buffer, handed over: See Note [Gradient buffer ownership]."""
        buffer = self.buffers.pop(node, None)
        if buffer is None:
            return [None] * node._n_outputs
        owned = self.owned
        if owned:
            for g in buffer:
                if g is not None:
                    owned.discard(id(g._data))
        return buffer

    def dispatch(self, node, outputs) -> None:
        """Put each gradient a node returned in its input's buffer; queue nodes now ready."""
        dependencies, buffers = self.dependencies, self.buffers
        needed = self.needed
        for (child, nr), g in zip(node.next_functions, outputs):
            if child is None:
                continue
            left = dependencies[child] - 1
            dependencies[child] = left
            if needed is not None and child not in needed and child not in self.captures:
                continue  # PyTorch neither runs nor buffers a node off every target's path
            slot = buffers.get(child)
            if slot is None:
                slot = buffers[child] = [None] * child._n_outputs
            if g is not None:
                current = slot[nr]
                if current is None:
                    slot[nr] = g
                else:
                    slot[nr] = sum_gradient(current, g, self.owned, self.create_graph)
            if left == 0:
                heapq.heappush(self.ready, (-child._seq, id(child), child))

    def will_execute(self, node) -> bool:
        """Whether this pass runs `node` (or captures its gradient): PyTorch's
        `_will_engine_execute_node`."""
        if node not in self.dependencies and node is not self.root:
            return False
        return self.needed is None or node in self.needed or node in self.captures

    def adoptable(self, g: Tensor) -> bool:
        """Whether AccumulateGrad may keep `g` itself as `.grad` (no one else can see it)."""
        data = g._data
        return id(g) != self.given and data.base is None and data.flags.writeable


def sum_gradient(current: Tensor, g: Tensor, owned: set, create_graph: bool) -> Tensor:
    """The sum of two gradients for one slot (See Note [Gradient buffer ownership]): a new
    tensor, recorded under create_graph, else made by `sum_arrays`."""
    if create_graph:  # (a sparse sum takes the dense side first, as PyTorch's add)
        return g + current if type(current._data) is SparseCOO else current + g
    data = current._data
    total = sum_arrays(data, g._data, owned)
    return current if total is data else Tensor._wrap(total)


def sum_arrays(data, g, owned: set):
    """`data + g`, two gradients of one slot: written into `data` if this pass made it by a
    sum (`owned` holds the ids of such arrays), else a new array, then owned. The compiled
    backward (_dynamo/compiled_node.py) sums with it too, so both sum as the engine does."""
    if (
        id(data) in owned
        and data.dtype == g.dtype
        and data.shape == g.shape
        and type(g) is not SparseCOO
        and type(data) is not SparseCOO
    ):
        np.add(data, g, out=data)
        return data
    array = sum_gradients(data, g)  # either may be sparse COO
    if type(array) is not np.ndarray and type(array) is not SparseCOO:
        array = np.array(array)
    owned.add(id(array))
    return array


def _graph_root(roots, grads):
    if len(roots) == 1:
        return roots[0][0]
    return GraphRoot(tuple(roots), tuple(grads))


def _dependencies(root) -> dict:
    """How many gradients each node under `root` waits for: one per edge into it."""
    dependencies: dict = {}
    stack = [root]
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is None:
                continue
            count = dependencies.get(child)
            if count is None:  # first seen: walk under it once (the graph has no cycle)
                dependencies[child] = 1
                stack.append(child)
            else:
                dependencies[child] = count + 1
    return dependencies


def _needed(root, targets: set, accumulate: bool) -> set:
    """The nodes that run to reach the targets (PyTorch's exec_info `needed_`).

    A node runs if a gradient it passes on reaches a target. `backward(inputs=)` also runs the
    targets' own nodes (an AccumulateGrad, or a non-leaf's grad_fn whose retained `.grad` is
    filled), while `grad()` only captures the gradient arriving at a target.
    """
    needed = set()
    reaches: dict = {}  # node -> whether it runs or captures (PyTorch's `should_execute`)
    stack = [(root, False)]
    while stack:  # post-order without recursion: a graph may be 100k nodes deep
        node, expanded = stack.pop()
        if node in reaches:
            continue
        children = [child for child, _ in node.next_functions if child is not None]
        if not expanded:
            stack.append((node, True))
            stack.extend((child, False) for child in children if child not in reaches)
            continue
        runs = (accumulate and node in targets) or any(reaches[c] for c in children)
        if runs:
            needed.add(node)
        reaches[node] = runs or node in targets
    if type(root) is GraphRoot:  # it only hands the root gradients on
        needed.add(root)
    return needed
