"""The engine: runs backward passes over the graph; `backward()` and `autograd.grad()`.

# Note [Engine order]
# A node runs once every node that feeds it a gradient has run (dependency counts from one
# walk of the graph). Among ready nodes the most recently created runs first, as in PyTorch,
# and AccumulateGrad nodes run as soon as they are ready. With `inputs=` (or in `grad()`)
# only the nodes on a path to those inputs run (see `graph_task._needed`).
"""

from __future__ import annotations

import heapq
import threading
import warnings
from collections.abc import Mapping

from .._tensor import Tensor, above
from ..graph import grad_mode, passes, saved_hooks
from ..graph.grad_mode import state as grad_state
from ..graph.node import AccumulateGrad
from ..ops.creation.factories import ones, zeros_like
from ..ops.table.record import gradient_edge
from ..runtime import namespace, quiet_floating_point
from ..runtime.warn_always import warn_once
from ..size import Size
from . import accumulate
from .batched_grad import batched_grad
from .errors import explain_no_grad
from .gradient_edge import GradientEdge, as_sequence, output_meta
from .graph_task import GraphTask
from .hook_results import checked_values
from .observers import observers

__all__ = ["backward", "grad", "execute", "current_task", "wrong_count"]


def _as_tuple(x):
    return as_sequence(x)


def _inputs_tuple(inputs, caller: str) -> tuple:
    """`inputs=` as a tuple: tensors or GradientEdges, one or a sequence, or a dict's values."""
    if type(inputs) is dict:
        return tuple(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(
            f"`inputs` argument to `{caller}()` must be a dict, not {type(inputs).__name__}. "
            "Other Mapping types are not supported."
        )
    return as_sequence(inputs)


def backward(
    tensors,
    grad_tensors=None,
    retain_graph=None,
    create_graph=False,
    grad_variables=None,
    inputs=None,
) -> None:
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
    inputs = None if inputs is None else _inputs_tuple(inputs, "backward")
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    roots = _roots(outputs)
    grads = _root_grads(outputs, grad_tensors)
    targets = None
    if inputs is not None:
        targets = _targets(inputs, "backward")
        for t in inputs:
            if isinstance(t, Tensor) and t._grad_fn is not None:
                t.retain_grad()  # as PyTorch: a non-leaf input keeps its .grad from now on
    execute(roots, grads, retain_graph, create_graph, targets, accumulate=True)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    only_inputs=True,
    allow_unused=None,
    is_grads_batched=False,
    materialize_grads=False,
) -> tuple:
    """Matches `torch.autograd.grad`: return d(outputs)/d(inputs); no `.grad` is touched."""
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    named = inputs if type(inputs) is dict else None
    inputs = _inputs_tuple(inputs, "grad")
    if len(inputs) == 0:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients")
    if is_grads_batched and any(g is not None for g in grad_outputs):
        result = batched_grad(
            grad,
            lambda i, t: _grad_result(i, t, None, create_graph, allow_unused, materialize_grads),
            outputs,
            inputs,
            grad_outputs,
            retain_graph,
            create_graph,
        )
        return result if named is None else dict(zip(named, result))
    if retain_graph is None:
        retain_graph = create_graph
    targets = _targets(inputs, "grad")
    roots = _roots(outputs)
    grads = _root_grads(outputs, grad_outputs)
    captured = execute(roots, grads, retain_graph, create_graph, targets, accumulate=False)
    result = tuple(
        _grad_result(i, t, g, create_graph, allow_unused, materialize_grads)
        for i, (t, g) in enumerate(zip(inputs, captured))
    )
    return result if named is None else dict(zip(named, result))


def _grad_result(i, t, g, create_graph, allow_unused, materialize_grads):
    if g is not None:
        return g if create_graph else g.detach()
    if materialize_grads:
        if isinstance(t, GradientEdge):
            raise RuntimeError(
                "materialize_grads cannot be used when the given input is a GradientEdge"
            )
        return zeros_like(t, requires_grad=create_graph)  # as PyTorch, a leaf
    if not allow_unused:
        raise RuntimeError(
            f"The differentiated Tensor at index {i} appears to not have been used in the "
            "graph. Set allow_unused=True if this is the desired behavior."
        )
    return None


CREATE_GRAPH_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using autograd.grad "
    "when creating the graph to avoid this. If you have to use this function, make sure to "
    "reset the .grad fields of your parameters to None after use to break the cycle and avoid "
    "the leak."
)


def _warn_create_graph_cycle() -> None:
    if warn_once("create_graph"):
        warnings.warn(CREATE_GRAPH_CYCLE, UserWarning, stacklevel=4)


# ---- roots and targets ---------------------------------------------------------------------


def _roots(outputs) -> list:
    roots = []
    for i, out in enumerate(outputs):
        if isinstance(out, GradientEdge):
            roots.append((out.node, out.output_nr))
            continue
        if not out._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
                + explain_no_grad(out)
            )
        roots.append(gradient_edge(out))
    return roots


def _ones_like(out: Tensor) -> Tensor:
    data = out._data
    ones = namespace(data).empty(data.shape, data.dtype)  # np.ones: a Python call more
    ones.fill(1)
    return Tensor._wrap(ones)


def _root_grads(outputs, grad_outputs) -> list:
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if isinstance(out, GradientEdge):
            grads.append(_edge_root_grad(i, out, g))
            continue
        if g is None:
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not (out.is_floating_point() or out.is_complex()):
                raise RuntimeError(
                    "grad can be implicitly created only for real scalar outputs but got "
                    f"{out.dtype}"
                )
            grads.append(_ones_like(out))
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        grads.append(_checked_root_grad(i, out, g))
    return grads


def _checked_root_grad(i: int, out: Tensor, g: Tensor) -> Tensor:
    if g._data.shape != out._data.shape:
        raise RuntimeError(
            f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._data.shape)} and "
            f"output[{i}] has a shape of {Size(out._data.shape)}."
        )
    if g.is_complex() != out.is_complex():
        raise TypeError(
            "For complex Tensors, both grad_output and output are required to have the same "
            f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and "
            f"output[{i}] has a dtype of {out.dtype}."
        )
    if g._data.dtype != out._data.dtype:  # PyTorch casts a root gradient to its output's
        g = g.to(out.dtype)
    return g


def _edge_root_grad(i: int, edge: GradientEdge, g):
    meta = output_meta(edge)
    if g is None:
        if meta is None or any(n != 1 for n in meta[0]):
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        return ones(meta[0], dtype=meta[1], device=meta[2])
    if not isinstance(g, Tensor):
        raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
    if meta is not None and g._data.shape != meta[0]:
        raise RuntimeError(
            f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._data.shape)} and "
            f"output[{i}] has a shape of {Size(meta[0])}."
        )
    return g


def _targets(inputs, caller: str) -> list:
    edges = []
    for t in inputs:
        if isinstance(t, GradientEdge):
            edges.append((t.node, t.output_nr))
            continue
        if not isinstance(t, Tensor):
            raise RuntimeError(
                f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}"
            )
        if not t._requires_grad and caller == "backward":
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        edges.append(gradient_edge(t))
    return edges


# ---- running a pass ------------------------------------------------------------------------

# Note [Reentrant backward]
# A custom Function's backward may itself call backward() (gradient checkpointing does). The
# inner pass runs on the same thread, inside the outer node's call, as in PyTorch; each level
# costs a few Python frames, so past MAX_DEPTH nested passes on one thread the inner pass runs
# on a fresh thread (with this thread's grad mode), which starts with an empty stack. A chain
# of 10,000 reentrant passes thus needs 10,000 / MAX_DEPTH waiting threads, never a deep stack.
MAX_DEPTH = 24


class _Passes(threading.local):
    # this thread's running passes, innermost last: (task, whether a checkpoint may recompute
    # in it); one thread-local read per pass, as each such read or write costs far more than
    # a list's append or pop
    def __init__(self):
        self.running: list = []
        self.checkpoint_valid = True  # outside any pass (a reentrant worker thread inherits it)


_local = _Passes()


def execute(roots, grads, keep_graph: bool, create_graph: bool, targets=None, accumulate=True):
    """Run one backward pass from `roots` (edges) with `grads`; return captured gradients."""
    running = _local.running
    if len(running) >= MAX_DEPTH:
        return _execute_on_new_thread(roots, grads, keep_graph, create_graph, targets, accumulate)
    outer_pass = passes.start(roots)  # See Note [Backward passes]
    task = GraphTask(roots, grads, keep_graph, create_graph, passes.current[0])
    if targets is not None:
        task.set_targets(targets, accumulate)
    watchers = observers.passes
    for watcher in watchers:
        watcher.pass_started(task, roots)
    prev_mode, prev_backward = grad_state.enabled, grad_state.backward
    grad_state.enabled, grad_state.backward = create_graph, True
    valid = running[-1][1] if running else _local.checkpoint_valid
    running.append((task, valid and targets is None))  # See `_is_checkpoint_valid`
    hooks = saved_hooks.snapshot()  # See Note [Saved tensor hooks]
    try:
        with quiet_floating_point():  # See Note [Floating-point warnings]
            _run(task)
            _run_final_callbacks(task)
    except BaseException as exc:
        for watcher in watchers:
            watcher.pass_failed(task, exc)
        raise
    finally:
        running.pop()
        saved_hooks.restore(hooks)
        grad_state.enabled, grad_state.backward = prev_mode, prev_backward
        passes.finish(outer_pass)
    for watcher in watchers:
        watcher.pass_finished(task)
    return task.captured


def current_task():
    """The GraphTask running on this thread (the innermost, in a reentrant backward), or None."""
    running = _local.running
    return running[-1][0] if running else None


def _run_final_callbacks(task: GraphTask) -> None:
    # Variable._execution_engine.queue_callback: run when the pass is done; a callback may
    # queue another, which runs too
    callbacks = task.callbacks
    while callbacks:
        callbacks.pop(0)()


def _run(task: GraphTask) -> None:
    """The loop: take the newest ready node, run it, hand its gradients on."""
    ready, needed, pop = task.ready, task.needed, heapq.heappop
    node_observers = observers.nodes
    while ready:
        node = pop(ready)[2]
        grads = task.take(node)
        if needed is not None and node not in needed:
            if node in task.captures:  # reached only to be captured (grad() of a target)
                task_capture(task, node, accumulate.tensor_pre_hooks(node, grads, task))
            continue  # else a root that reaches no target: PyTorch does not run it
        if needed is not None and node in task.captures:
            task_capture(task, node, grads)  # before the hooks, as PyTorch
        if node._plain and not node_observers:  # no hooks, nobody watching: run it here
            if grads[0] is None and node._needs_grads and all(g is None for g in grads):
                outputs = None  # nothing to pass on; the children still count this edge
            else:
                outputs = node.apply(tuple(grads))
                if len(outputs) != len(node.next_functions):
                    wrong_count(node, outputs)
            if not task.keep_graph:
                node.release()
        elif type(node) is AccumulateGrad and not (node._pre_hooks or node._hooks):
            # a leaf's sink without node hooks (the leaf's own hooks run in accumulate.py)
            accumulate.accumulate_leaf(
                task, node, accumulate.tensor_pre_hooks(node, grads, task)[0]
            )
            if not task.keep_graph:
                node.release()
            continue
        else:
            outputs = _call(task, node, grads)
        if outputs:
            task.dispatch(node, outputs)
            outputs = None  # the buffers hold them now (See Note [Gradient buffer ownership])


def task_capture(task: GraphTask, node, grads) -> None:
    # autograd.grad: keep the gradient that reached a requested input
    for nr, index in task.captures[node]:
        task.captured[index] = grads[nr]


def _apply(node, grads):
    if grads[0] is None and node._needs_grads and all(g is None for g in grads):
        return None  # nothing to pass on: the children still count this edge as done
    outputs = node.apply(tuple(grads))
    if len(outputs) != len(node.next_functions):
        wrong_count(node, outputs)
    return outputs


def wrong_count(node, outputs):
    raise RuntimeError(
        f"function {node.name()} returned an incorrect number of gradients (expected "
        f"{len(node.next_functions)}, got {len(outputs)})"
    )


def _call(task: GraphTask, node, grads):
    """Run a node with its hooks, in PyTorch's order: tensor hooks and retain_grad, the
    node's pre-hooks, the node (AccumulateGrad: the leaf's `.grad`), its post-hooks."""
    grads = accumulate.tensor_pre_hooks(node, grads, task)
    if node._pre_hooks:
        for hook in tuple(node._pre_hooks.values()):
            given = tuple(grads)
            result = hook(given)
            if result is not None:
                grads = checked_values(hook, given, result)
        result = None  # `grads` alone holds them (a leaf may adopt one: accumulate.py)
    if type(node) is AccumulateGrad:
        accumulate.accumulate_leaf(task, node, grads[0])
        outputs = ()
    else:
        for watcher in observers.nodes:
            watcher.node_started(node, grads)
        try:
            outputs = _apply(node, grads)
        except Exception as exc:
            for watcher in observers.nodes:
                watcher.node_failed(node, exc)
            raise
        for watcher in observers.nodes:
            watcher.node_finished(node, outputs)
    if not task.keep_graph:
        node.release()
    if node._hooks:
        outputs = _post_hooks(node, outputs, grads)
    return outputs


def _post_hooks(node, outputs, grads):
    outputs = outputs if outputs is not None else (None,) * len(node.next_functions)
    for hook in tuple(node._hooks.values()):
        result = hook(outputs, tuple(grads))
        if result is not None:
            outputs = tuple(checked_values(hook, outputs, result))
    return outputs


def _execute_on_new_thread(*args):
    # See Note [Reentrant backward]: the grad modes, the saved-tensor hooks and whether a
    # checkpoint may recompute are thread-local, so they travel along
    result: list = []
    modes = grad_mode.thread_modes()
    hooks = saved_hooks.snapshot()
    valid = _is_checkpoint_valid()

    def work():
        grad_mode.set_thread_modes(modes)
        saved_hooks.restore(hooks)
        _local.checkpoint_valid = valid
        try:
            result.append(("ok", execute(*args)))
        except BaseException as exc:  # re-raised on the waiting thread
            result.append(("error", exc))
        finally:
            grad_mode.set_thread_modes(grad_mode.DEFAULT_MODES)
            saved_hooks.restore([])

    worker = threading.Thread(target=work, name="dyngrad-reentrant-backward")
    worker.start()
    worker.join()
    kind, value = result[0]
    if kind == "error":
        raise value.with_traceback(value.__traceback__)
    return value


def _is_checkpoint_valid() -> bool:
    """Matches `torch.autograd._is_checkpoint_valid`: False inside a backward pass that runs
    only towards some inputs (`autograd.grad`, `backward(inputs=...)`), where a reentrant
    checkpoint cannot recompute its part of the graph."""
    running = _local.running
    return running[-1][1] if running else _local.checkpoint_valid


above.backward = backward  # Tensor.backward: See Note [Calls up the layers]
