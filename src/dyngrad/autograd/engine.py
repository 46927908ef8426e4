"""The engine: walks the graph backward from outputs; `backward()` and `autograd.grad()`.

# Note [Engine order]
# A node runs once every node that feeds it a gradient has run (dependency counts from one
# walk of the graph). Among ready nodes the most recently created runs first, as in PyTorch,
# and AccumulateGrad nodes run as soon as they are ready. With `inputs=` (or in `grad()`)
# only the nodes on a path to those inputs run.
"""

from __future__ import annotations

import heapq
import warnings

from .._tensor import Tensor
from ..backend import namespace, quiet_floating_point
from . import accumulate, anomaly
from .grad_mode import state as grad_state
from .graph import AccumulateGrad, _sequence

__all__ = ["backward", "grad"]


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _edge(t):
    """`ops.registry.edge`, bound on first use: the op table imports this module."""
    global _edge
    from ..ops.registry import edge

    _edge = edge
    return edge(t)


def _ones_like(out: Tensor) -> Tensor:
    data = out._data
    ones = namespace(data).empty(data.shape, data.dtype)  # np.ones: a Python call more
    ones.fill(1)
    return Tensor._wrap(ones)


def _root_grads(outputs, grad_outputs, create_graph: bool) -> list:
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out._rg and out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out._rg and out._data.dtype.kind != "f" and not out.is_floating_point():
                raise RuntimeError("grad can be implicitly created only for real scalar "
                                   f"outputs but got {out.dtype}")
            grads.append(_ones_like(out) if out._rg else None)
            continue
        if not isinstance(g, Tensor):
            raise TypeError("gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
        if g._data.shape != out._data.shape:
            from ..size import Size

            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._data.shape)} and "
                f"output[{i}] has a shape of {Size(out._data.shape)}.")
        if g.is_complex() != out.is_complex():
            raise TypeError(f"For complex Tensors, both grad_output and output are required to "
                            f"have the same dtype. Mismatch in dtype: grad_output[{i}] has a "
                            f"dtype of {g.dtype} and output[{i}] has a dtype of {out.dtype}.")
        if g._data.dtype != out._data.dtype:  # PyTorch casts a root gradient to its output's
            g = g.to(out.dtype)
        grads.append(g)
    return grads


def _roots(outputs) -> list:
    roots = []
    for i, out in enumerate(outputs):
        if not out._rg:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               f"have a grad_fn" + _no_grad_reason(out))
        roots.append(_edge(out))
    return roots


def _no_grad_reason(t) -> str:
    from .errors import explain_no_grad

    return explain_no_grad(t)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None) -> None:
    """Matches `torch.autograd.backward`: accumulate gradients into leaves' `.grad`."""
    outputs = _as_tuple(tensors)
    grad_tensors = _as_tuple(grad_tensors if grad_tensors is not None else grad_variables)
    if grad_tensors is None:
        grad_tensors = (None,) * len(outputs)
    if len(grad_tensors) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_tensors)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        _warn_create_graph_cycle()
    inputs = _as_tuple(inputs)
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    roots = _roots(outputs)
    grads = _root_grads(outputs, grad_tensors, create_graph)
    if inputs is None:
        _execute(roots, grads, retain_graph, create_graph)
        return
    targets = _targets(inputs, "backward")
    captured = _execute(roots, grads, retain_graph, create_graph, targets, to_leaves=True)
    for t, g in zip(inputs, captured):
        if t._fn is not None and g is not None:  # non-leaf inputs accumulate too
            accumulate.accumulate_into(t, g, create_graph, shared=True)


CREATE_GRAPH_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using autograd.grad "
    "when creating the graph to avoid this. If you have to use this function, make sure to "
    "reset the .grad fields of your parameters to None after use to break the cycle and avoid "
    "the leak.")
_warned = set()


def _warn_create_graph_cycle() -> None:
    if "create_graph" not in _warned:  # once per process, as PyTorch's TORCH_WARN_ONCE
        _warned.add("create_graph")
        warnings.warn(CREATE_GRAPH_CYCLE, UserWarning, stacklevel=4)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False,
         materialize_grads=False) -> tuple:
    """Matches `torch.autograd.grad`: return d(outputs)/d(inputs); no `.grad` is touched."""
    if is_grads_batched:
        raise NotImplementedError("dyngrad does not implement torch.autograd.grad("
                                  "is_grads_batched=True)")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    for t in inputs:
        if not isinstance(t, Tensor):
            raise RuntimeError("all inputs have to be Tensors or GradientEdges, but got "
                               f"{type(t).__name__}")
        if not t._rg:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    roots = _roots(outputs)
    grads = _root_grads(outputs, grad_outputs, create_graph)
    targets = _targets(inputs, "grad")
    captured = _execute(roots, grads, retain_graph, create_graph, targets, to_leaves=False)
    result = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if materialize_grads:
                from ..ops.creation import zeros_like

                g = zeros_like(t, requires_grad=create_graph)  # as PyTorch, a leaf
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior.")
        elif not create_graph:
            g = g.detach()
        result.append(g)
    return tuple(result)


def _targets(inputs, caller: str) -> dict:
    targets: dict = {}
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise RuntimeError("all inputs have to be Tensors or GradientEdges, but got "
                               f"{type(t).__name__}")
        if not t._rg and caller == "backward":
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        targets.setdefault(_edge(t), []).append(i)
    return targets


def _graph(roots, with_parents: bool) -> tuple[dict, dict]:
    """Dependency counts of every node under the roots (and each node's parents, if asked)."""
    deps: dict = {}
    parents: dict = {}
    stack = [n for n, _ in roots if n is not None]
    seen = set(stack)
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is None:
                continue
            if child in deps:
                deps[child] += 1
            else:
                deps[child] = 1
            if with_parents:
                parents.setdefault(child, []).append(node)
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return deps, parents


def _needed(targets: dict, parents: dict) -> set:
    needed = {node for node, _ in targets}
    stack = list(needed)
    while stack:
        for parent in parents.get(stack.pop(), ()):
            if parent not in needed:
                needed.add(parent)
                stack.append(parent)
    return needed


# Note [Backward passes]
# Each backward (or grad) call is numbered. A node that frees its buffers keeps the pass that
# freed them, so a later backward through it can say which pass used the graph, and (when the
# tensor it starts from was made after that pass) that the graph mixes in an earlier iteration.
_INF = float("inf")
current_pass = (0, 0, 0)  # (number, sequence number at its start, its newest root's number)


def _start_pass(roots) -> None:
    global current_pass
    newest = -1
    for node, _ in roots:
        if node is not None and newest < node._seq != _INF:
            newest = node._seq
    current_pass = (current_pass[0] + 1, next(_sequence), newest)


def _execute(roots, grads, keep_graph: bool, create_graph: bool, targets=None,
             to_leaves=True):
    _start_pass(roots)
    deps, parents = _graph(roots, targets is not None)
    needed = _needed(targets, parents) if targets is not None else None
    captured = [None] * (sum(len(v) for v in targets.values()) if targets else 0)
    buffers: dict = {}
    # id(grad) -> how often it was handed on as is; an AccumulateGrad copies a shared one
    dispatched: dict = {}
    summed: set = set()  # ids of sums this pass made: nobody else holds them, add in place
    for (node, nr), g in zip(roots, grads):
        if g is None:
            continue
        slot = buffers.setdefault(node, [None] * node._n_outputs)
        slot[nr] = g if slot[nr] is None else slot[nr] + g
        dispatched[id(slot[nr])] = 2
    ready = []
    for node in buffers:
        if node not in deps:
            heapq.heappush(ready, (-node._seq, id(node), node))
    push, pop = heapq.heappush, heapq.heappop
    anomaly_state = anomaly.state
    prev_mode, prev_backward = grad_state.enabled, grad_state.backward
    grad_state.enabled = create_graph
    grad_state.backward = True
    quiet = quiet_floating_point()  # See Note [Floating-point warnings]
    quiet.__enter__()
    try:
        while ready:
            node = pop(ready)[2]
            buf = buffers.pop(node, None) or [None] * node._n_outputs
            if summed:  # handed to a node now: it may pass it on as is, so no more in place
                for g in buf:
                    summed.discard(id(g))
            if type(node) is AccumulateGrad:
                accumulate.run_leaf(node, buf, targets, captured, to_leaves, needed, create_graph,
                          dispatched)
                continue
            if node._tensor_hooks or node._retains:
                accumulate.run_tensor_hooks(node, buf, create_graph)
            if targets is not None:
                accumulate.capture(node, buf, targets, captured)
                if node not in needed:
                    continue
            if node._pre_hooks or node._hooks or anomaly_state.enabled:
                outs = _call(node, buf, keep_graph)
            elif buf[0] is not None or any(g is not None for g in buf):
                outs = node.apply(tuple(buf))
                if not keep_graph:
                    node.release()
            else:
                outs = None
            next_functions = node.next_functions
            if outs is None:
                outs = (None,) * len(next_functions)
            elif len(outs) != len(next_functions):
                raise RuntimeError(f"function {node.name()} returned an incorrect number of "
                                   f"gradients (expected {len(next_functions)}, got "
                                   f"{len(outs)})")
            for (child, nr), g in zip(next_functions, outs):
                if child is None:
                    continue
                if g is not None:
                    slot = buffers.get(child)
                    if slot is None:
                        if child._n_outputs == 1:
                            buffers[child] = [g]
                        else:
                            slot = buffers[child] = [None] * child._n_outputs
                            slot[nr] = g
                        key = id(g)
                        dispatched[key] = dispatched.get(key, 0) + 1
                    elif slot[nr] is None:
                        slot[nr] = g
                        key = id(g)
                        dispatched[key] = dispatched.get(key, 0) + 1
                    else:
                        slot[nr] = accumulate.sum_into(slot[nr], g, create_graph, summed)
                left = deps[child] - 1
                deps[child] = left
                if left == 0:
                    push(ready, (-child._seq, id(child), child))
    finally:
        grad_state.enabled = prev_mode
        grad_state.backward = prev_backward
        quiet.__exit__(None, None, None)
    return captured


def _call(node, buf: list, keep_graph: bool) -> tuple | None:
    """Run a node with its hooks and anomaly checks (the loop runs plain nodes itself)."""
    if not any(g is not None for g in buf):
        return None
    grads = tuple(buf)
    if node._pre_hooks:
        for hook in tuple(node._pre_hooks.values()):
            result = hook(grads)
            if result is not None:
                grads = tuple(result)
    try:
        outs = node.apply(grads)
    except Exception:
        if anomaly.state.enabled:
            anomaly.forward_trace_warning(node)
        raise
    if anomaly.state.enabled and anomaly.state.check_nan:
        try:
            anomaly.check_nan(node, outs)
        except RuntimeError:
            anomaly.forward_trace_warning(node)
            raise
    if node._hooks:
        for hook in tuple(node._hooks.values()):
            result = hook(outs, grads)
            if result is not None:
                outs = tuple(result)
    if not keep_graph:
        node.release()
    return outs
