"""The one recording path: where an op call is seen, its node made, its values saved.

# Note [One recording path]
# Every way an op can record history goes through this module: `apply` (the table ops), the
# fast forms (fast.py), in-place ops (inplace.py) and custom Functions (autograd/function.py).
#   record(node, inputs, mask, attrs, plan, result)
#                                        a new node: its sequence number, its edges to the
#                                        inputs that require grad (`gradient_edge`), their
#                                        shapes and dtypes, the op's attributes, in anomaly
#                                        mode the forward stack, and what its formulas read
#                                        with each saved tensor's version (Note [Version
#                                        counters])
#   Tensor._wrap(data, ...)              every output tensor (`new_tensor`; a view op's by
#                                        `new_view`: the same fields, its base's counter)
#   observer                             told of every op (the doctor; Note [Op observer])
#   pack_saved                           what a node saved, handed to the saved-tensor hooks
#                                        while any are active (Note [Saved tensor hooks])
# So whatever must see op calls (the compile tracer, autocast, saved-tensor hooks, the
# doctor) attaches here once. The fast forms are these two functions' steps written out for
# their row by one template, which reads `new_tensor`'s body from it (See Note [Generated fast
# forms]); tests/ops/test_fast_forms.py checks that they record the same nodes as `apply`.
# (Recording is one call, not one per step: a Python call costs ~400 instructions, a fifth of
# recording `x * y`.)

# Note [In-place through a view]
# Writing into a view `v = b[0]` changes `b`, so `b`'s history must change too. PyTorch's
# answer, kept here: `b.grad_fn` becomes `CopySlices` (views.py), which passes `b`'s old
# gradient through everywhere except the written region, where it applies the in-place op's
# backward. Every view of `b` made before the write is stale afterwards (its version no longer
# matches its base's); the next time its history is needed it is rebuilt as a view of the new
# `b` (`AsStridedBackward0`, PyTorch's name). A view remembers how it was made from its base
# as a chain of (op, attrs) steps, linked to its source's chain (so making a view costs the
# same however deep the chain), replayed on the base's gradient.
"""

from __future__ import annotations

import functools

import numpy as np

from ..._tensor import InferenceCounter, Tensor, above, new_tensor, user_site
from ...graph import anomaly_mode as anomaly
from ...graph import errors as graph_errors
from ...graph import saved_hooks
from ...graph.grad_mode import state as grad_state
from ...graph.node import REQUIRING_GRAD, Node, _sequence, grad_accumulator, move_retains_grad
from ...graph.saved import SAVES_OUTPUT as _SAVES_OUTPUT
from ...graph.saved import SavedOutput
from ...graph.saved_hooks import Packed
from ...runtime import namespace
from ...runtime.sparse_coo import SparseCOO
from .errors import not_on_sparse, translate
from .view_errors import creation_of, view_rebase_error

__all__ = [
    "apply",
    "autocast_entry",
    "set_autocast",
    "set_op_started",
    "record",
    "save",
    "pack_saved",
    "gradient_edge",
    "note_no_grad",
    "observer",
    "inplace_observer",
    "observe_backward",
    "replay_view",
    "refresh_view",
    "replayable",
    "source_observer",
    "view_steps",
]

_EMPTY: dict = {}
_new = object.__new__
_ndarray = np.ndarray
_NO_EDGE = (None, 0)
_next_seq = _sequence.__next__
_wrap = new_tensor
_hooks_active = saved_hooks.active  # non-empty while any thread has saved-tensor hooks
# Note [Op observer]: `dyngrad.doctor` (and the profiler, which calls on to the observer it
# found) sets this to `observer(op, args, attrs, result)` while it watches; every op checks it
# once (a global read), so it costs ~nothing while None.
# `observe_backward` says whether backward formulas must run as observed Tensor ops too
# (nodes.py); when False they keep their array kernels (Note [Array backwards]) and only the
# forward is observed: the doctor turns it on once a gradient turns non-finite.
observer = None
# forward AD (autograd/forward_ad.py) sets this to `inplace_observer(op, args, attrs, value)`
# while a dual level is open: called by in-place ops before they write `value` (an array)
# into args[0], when the old value is still there to read
inplace_observer = None
observe_backward = True

# Note [Autocast hook]
# `dyngrad.amp` sets `autocast` (through `set_autocast`: the profiler shares the slot, Note [Op
# start hook]) to `cast(name, args) -> args` while any autocast region is open (on any thread)
# and back to None when the last one closes. An op hands it its name and
# inputs before running; it returns them cast as PyTorch's autocast policy for that op says
# (amp/policy.py: the one table), or unchanged. So while no region is open an op pays one
# global read. Table ops are hooked here in `apply` (the fast forms fall back to `apply`
# while a region is open); composites that PyTorch casts at their own entry (prelu,
# cross_entropy, matmul...) call it through `autocast_entry`.
autocast = None

# Note [Op start hook]
# The profiler times an op from its start, which the observer (told at the op's end, Note [Op
# observer]) cannot see. A second check in every op would cost every op; instead the profiler
# shares the slot every table op and fast form already reads first, `autocast` (the fast forms
# take `apply` while it is set): amp installs its cast with `set_autocast`, the profiler its
# `op_started(name)` with `set_op_started`, and the slot holds whichever are set, composed.
# Code asking "is an autocast region open" reads `amp_cast`, not the slot.
amp_cast = None
op_started = None


# Note [Replayable sources]
# A compiled call may be replayed without its Python (dyngrad/_dynamo/replay.py, Note
# [Replay]): the ops it ran are run again on new arrays. Tensors made by other means than an
# op (a factory such as `zeros`, a random draw such as dropout's noise) must be made again
# too, the random ones drawing anew from their generator in the same order as eager would.
# Each such builder is decorated `replayable`: while a compiled call is traced,
# `source_observer(fn, args, kwargs)` runs it and notes the call, so the replay can call it
# again; otherwise the builder costs one global read more. A tensor the trace cannot place
# (made by an undecorated path) refuses the replay: nothing is guessed.
source_observer = None


class Constant(tuple):
    """Arrays an op's caller built from Python values alone (sizes, scales), passed as one
    attribute: the same on every call whose inputs have the same shapes, so a replay reuses
    the traced ones (See Note [Replayable sources]), where an array of unknown origin in an
    op's attributes refuses the replay. Never for arrays read from a tensor's data."""

    __slots__ = ()


def replayable(fn):
    """Mark `fn` (a builder of a tensor or an array from Python values and arrays) as one a
    replayed compiled call may call again. See Note [Replayable sources]."""

    @functools.wraps(fn)
    def source(*args, **kwargs):
        if source_observer is None:
            return fn(*args, **kwargs)
        return source_observer(fn, args, kwargs)

    return source


def set_autocast(cast) -> None:
    """Install amp's cast (None: no region open). See Note [Op start hook]."""
    global amp_cast
    amp_cast = cast
    _fill_slot()


def set_op_started(hook) -> None:
    """Install the profiler's `hook(name)`, told as an op starts (None: removed)."""
    global op_started
    op_started = hook
    _fill_slot()


def _fill_slot() -> None:
    global autocast
    if op_started is None:
        autocast = amp_cast
    elif amp_cast is None:
        autocast = _started
    else:
        autocast = _started_then_cast


def _started(name: str, args):
    op_started(name)
    return args


def _started_then_cast(name: str, args):
    op_started(name)
    return amp_cast(name, args)


def gradient_edge(t: Tensor):
    """The (node, output_nr) a gradient for `t` flows into.

    # Note [Leaf edges]
    # `record` and the fast forms write this out for the inputs that are not views: an input
    # with history links to its node; a leaf to its AccumulateGrad, read as `t._accum` once
    # made (`grad_accumulator` makes it on first use; a node is never false), so that linking
    # a parameter costs no call.
    """
    if t._base is not None and t._view_ver != t._version_counter.value:
        refresh_view(t)
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._out_nr)
    return (grad_accumulator(t), 0)


def record(
    node: Node,
    inputs: tuple,
    mask: int,
    attrs: dict = _EMPTY,
    plan: tuple | None = (),
    result=None,
) -> Node:
    """Record `node`, the history of an op call on `inputs`: its sequence number, its edges to
    the inputs whose bit in `mask` is set (those that require grad), their (shape, dtype), the
    op's attributes, the forward stack in anomaly mode, and what its formulas read (`plan`:
    (name, input index, or -1 for the output `result`)) with each saved tensor's version.

    `plan=None` leaves the saving to the caller: an in-place op saves after its write, a
    custom Function saves what its forward asks for.
    """
    node._seq = _next_seq()
    # the common cases written out: one input, or two that both require grad (Note [Hot path]);
    # the rest in helpers, as every local of this frame costs on each call
    if mask == 1 and len(inputs) == 1:
        a = inputs[0]
        fn = a._grad_fn
        if a._base is not None:
            fn = gradient_edge(a)
        elif fn is not None:
            fn = (fn, a._out_nr)
        else:  # a leaf: its AccumulateGrad, made on first use (See Note [Leaf edges])
            fn = (a._accum or grad_accumulator(a), 0)
        node.next_functions = (fn,)
        a = a._data
        node._meta = ((a.shape, a.dtype),)
    elif mask == 3 and len(inputs) == 2:
        a, b = inputs
        fn = a._grad_fn
        if a._base is not None:
            ea = gradient_edge(a)
        elif fn is not None:
            ea = (fn, a._out_nr)
        else:  # a leaf
            ea = (a._accum or grad_accumulator(a), 0)
        fn = b._grad_fn
        if b._base is not None:
            fn = gradient_edge(b)
        elif fn is not None:
            fn = (fn, b._out_nr)
        else:  # a leaf
            fn = (b._accum or grad_accumulator(b), 0)
        node.next_functions = (ea, fn)
        a = a._data
        b = b._data
        node._meta = ((a.shape, a.dtype), (b.shape, b.dtype))
    elif mask == 1 and len(inputs) == 2 and node._edges is not REQUIRING_GRAD:  # x ** 2
        # (the second input has no edge: its bit is clear, or it has no formula (edges (0,)))
        a = inputs[0]
        fn = a._grad_fn
        if a._base is not None:
            fn = gradient_edge(a)
        elif fn is not None:
            fn = (fn, a._out_nr)
        else:  # a leaf
            fn = (a._accum or grad_accumulator(a), 0)
        node.next_functions = (fn, _NO_EDGE) if node._edges is None else (fn,)
        a = a._data
        node._meta = ((a.shape, a.dtype), None)
    elif len(inputs) == 3 and node._edges is None:  # addmm (every Linear), addcmul, where...
        _connect3(node, inputs, mask)
    else:
        _connect(node, inputs, mask)
    node._attrs = attrs
    if anomaly.state.enabled:
        anomaly.record(node)
    if amp_cast is not None:  # describe() marks the nodes an autocast region recorded
        node.__dict__["_under_autocast"] = True
    if plan is None:
        return node
    if not plan:
        node._saved = node._versions = _EMPTY
        return node
    if plan is _SAVES_OUTPUT and type(result) is not tuple:  # relu, exp, tanh...
        a = _new(SavedOutput)
        a.data = result._data
        a.version_counter = fn = result._version_counter
        a.output_nr = 0
        a._tensor = None
        node._saved = {"out": a}
        node._versions = {"out": fn.value}
    else:
        saved = {}
        versions = {}
        for name, index in plan:  # mul, div, matmul...: inputs only
            if index < 0:
                _save(node, plan, inputs, result)
                break
            a = saved[name] = inputs[index]
            if isinstance(a, Tensor):
                versions[name] = a._version_counter.value
        else:
            node._saved = saved
            node._versions = versions
    if _hooks_active:  # See Note [Saved tensor hooks]
        pack_saved(node, result)
    return node


def _connect(node: Node, inputs: tuple, mask: int) -> None:
    edges = []
    meta = []
    for a in inputs:
        if mask & 1:
            fn = a._grad_fn
            if a._base is not None:
                edges.append(gradient_edge(a))
            elif fn is not None:
                edges.append((fn, a._out_nr))
            else:  # a leaf
                edges.append((a._accum or grad_accumulator(a), 0))
            data = a._data
            meta.append((data.shape, data.dtype))
        else:
            edges.append(_NO_EDGE)
            meta.append(None)
        mask >>= 1
    differentiable = node._edges
    if differentiable is not None:  # See Note [Edges are differentiable inputs]
        if differentiable is REQUIRING_GRAD:  # PyTorch's NotImplemented node
            differentiable = node._edges = tuple(i for i, m in enumerate(meta) if m is not None)
        edges = [edges[i] for i in differentiable]
    node.next_functions = tuple(edges)
    node._meta = tuple(meta)


def _connect3(node: Node, inputs: tuple, mask: int) -> None:
    # `_connect`'s loop written out for three inputs that all have edges
    a, b, c = inputs
    if mask & 1:
        fn = a._grad_fn
        if a._base is not None:
            ea = gradient_edge(a)
        elif fn is not None:
            ea = (fn, a._out_nr)
        else:  # a leaf
            ea = (a._accum or grad_accumulator(a), 0)
        a = a._data
        a = (a.shape, a.dtype)
    else:
        ea = _NO_EDGE
        a = None
    if mask & 2:
        fn = b._grad_fn
        if b._base is not None:
            eb = gradient_edge(b)
        elif fn is not None:
            eb = (fn, b._out_nr)
        else:  # a leaf
            eb = (b._accum or grad_accumulator(b), 0)
        b = b._data
        b = (b.shape, b.dtype)
    else:
        eb = _NO_EDGE
        b = None
    if mask & 4:
        fn = c._grad_fn
        if c._base is not None:
            ec = gradient_edge(c)
        elif fn is not None:
            ec = (fn, c._out_nr)
        else:  # a leaf
            ec = (c._accum or grad_accumulator(c), 0)
        c = c._data
        c = (c.shape, c.dtype)
    else:
        ec = _NO_EDGE
        c = None
    node.next_functions = (ea, eb, ec)
    node._meta = (a, b, c)


def _save(node: Node, plan: tuple, inputs: tuple, result) -> None:
    saved = {}
    versions = {}
    for name, index in plan:
        if index >= 0:
            value = inputs[index]
            saved[name] = value
            if isinstance(value, Tensor):
                versions[name] = value._version_counter.value
            continue
        # See Note [Graph ownership]: an output is saved as its array and counter, never as
        # the tensor (whose grad_fn is this node: a cycle)
        outputs = (result,) if type(result) is not tuple else result
        for i, out in enumerate(outputs):
            key = name if outputs is not result else f"{name}{i}"  # max(dim): out0, out1
            saved[key] = SavedOutput(out._data, out._version_counter, i)
            versions[key] = out._version_counter.value
    node._saved = saved
    node._versions = versions


def save(node: Node, plan: tuple, inputs: tuple, result) -> None:
    """Save what `plan` says on `node` and pack it through the saved-tensor hooks: for an
    in-place op under hooks, whose saving waits until its write is counted (inplace.py)."""
    if not plan:
        node._saved = node._versions = _EMPTY
        return
    _save(node, plan, inputs, result)
    pack_saved(node, result)


def pack_saved(node: Node, result) -> None:
    """Hand every tensor `node` saved to this thread's pack hook, if it has hooks (See Note
    [Saved tensor hooks]); a saved output is handed as the output tensor itself."""
    hooks = saved_hooks.current()
    if hooks is None:  # hooks on another thread only
        return
    saved = {}
    versions = node._versions
    for name, value in node._saved.items():
        if type(value) is SavedOutput:
            nr = value.output_nr
            out = result[nr] if type(result) is tuple else result
            value = saved_hooks.pack(out, hooks, True, nr, node)
        elif isinstance(value, Tensor):
            value = saved_hooks.pack(value, hooks, node=node)
        saved[name] = value
    node._saved = saved
    node._versions = {k: v for k, v in versions.items() if type(saved[k]) is not Packed}


def apply(op, args: tuple, attrs: dict = _EMPTY):
    """Run `op` on `args` (tensors or numbers) and record a node when a gradient is needed."""
    if autocast is not None:  # See Note [Autocast hook]
        args = autocast(op.name, args)
    # one or two inputs written out: a comprehension is a call of its own
    if len(args) == 1:
        a = args[0]
        arrays = [a._data if isinstance(a, Tensor) else a]
    elif len(args) == 2:
        a, b = args
        arrays = [a._data if isinstance(a, Tensor) else a, b._data if isinstance(b, Tensor) else b]
    else:
        arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    if op.promote is not None:
        arrays = op.promote(arrays, args)
    first = arrays[0]
    try:
        if type(first) is _ndarray:
            out = op.fwd(np, *arrays, **attrs)
        elif type(first) is SparseCOO:  # (issue 14) See Note [Sparse COO arrays]
            out = _sparse_forward(op, arrays, attrs)
        else:
            out = op.fwd(namespace(first), *arrays, **attrs)
    except (ValueError, IndexError, TypeError, MemoryError) as exc:
        raise translate(op, args, attrs, exc) from None
    if op.stash:  # See Note [Stashed intermediates]
        out, stash = out
    mask = 0
    enabled = grad_state.enabled  # read once: a thread-local
    if enabled and op.records:
        for i, a in enumerate(args):
            if isinstance(a, Tensor) and a._requires_grad:
                mask |= 1 << i
        if mask & ~op.edge_mask:  # See Note [Edges are differentiable inputs]
            refuse_non_differentiable(op, mask)
            mask &= op.edge_mask
        if mask and type(out) is _ndarray and out.dtype.kind in "biu":
            mask = 0  # an integer or bool result takes no gradient (`x.long()`), as PyTorch's
    if not mask:
        result = _outputs(op, args, attrs, out, None, enabled)
        if not enabled and op.records:
            note_no_grad(result, args)
    else:
        node = _new(op.node_cls or op.node_class())
        if op.n_outputs is None:
            node._n_outputs = len(out)
        if op.stash:
            node._stash = stash
        result = _outputs(op, args, attrs, out, node)
        record(node, args, mask, attrs, op.plans[mask], result)
    if observer is not None:  # See Note [Op observer]
        observer(op, args, attrs, result)
    return result


def refuse_non_differentiable(op, mask: int) -> None:
    """PyTorch's error for an input it does not differentiate (nll_loss's weight, batch norm's
    running statistics) that requires grad; other inputs without an edge are left out."""
    for i, message in op.refused.items():
        if mask >> i & 1:
            raise RuntimeError(message)


def _sparse_forward(op, arrays, attrs):
    # the row's sparse forward, or PyTorch's error for an op with no sparse kernel
    if op.sparse is None:
        raise not_on_sparse(op)
    return op.sparse(np, *arrays, **attrs)


def autocast_entry(name: str):
    """Decorate a composite whose inputs PyTorch's autocast casts at its entry as op `name`
    (See Note [Autocast hook]); the ops inside then see inputs already cast."""

    def decorate(fn):
        @functools.wraps(fn)
        def entry(*args, **kwargs):
            if autocast is not None:
                args = autocast(name, args)
                if kwargs:
                    kwargs = dict(zip(kwargs, autocast(name, tuple(kwargs.values()))))
            return fn(*args, **kwargs)

        return entry

    return decorate


def note_no_grad(result, args) -> None:
    """Grad mode is off: if an input requires grad, remember where the output lost its history,
    for the "does not require grad" error (see `explain_no_grad`). Not on the grad-on path."""
    if grad_state.inference or grad_state.backward:
        return
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad:
            site = user_site(3)
            for t in result if type(result) is tuple else (result,):
                t._nograd_site = site
            graph_errors.last_no_grad_site = site
            return


def _outputs(op, args, attrs, out, node, enabled: bool = True):
    # `enabled`: grad mode as `apply` read it (a view made without grad remembers it)
    if op.n_outputs == 1:
        if type(out) is not _ndarray:
            if type(out) is SparseCOO:  # never a view of its input, as in PyTorch
                return _wrap(out, node is not None, node)
            out = np.asarray(out)  # a NumPy scalar from a full reduction
        if op.view:
            return new_view(out, args[0], op, attrs, enabled, node)
        return _wrap(out, node is not None, node)
    results = []
    for i, o in enumerate(out):
        differentiable = node is not None and op.is_differentiable(i)
        if op.view:
            t = new_view(
                np.asarray(o), args[0], op, attrs, enabled, node if differentiable else None, i
            )
        else:
            t = _wrap(np.asarray(o), differentiable, node if differentiable else None, i)
        results.append(t)
    return tuple(results)


# ---- views: See Note [In-place through a view] ----------------------------------------------


def new_view(data, source: Tensor, op, attrs, enabled: bool, grad_fn=None, output_nr: int = 0):
    """The output of view op `op` on `source` (`data`, its array), under grad mode `enabled`:
    `new_tensor`'s tensor, sharing `source`'s base and version counter (See Note [Version
    counters]), built here in one go rather than made by `new_tensor` with a counter of its
    own that would at once be replaced."""
    view = _new(Tensor)
    view._data = data
    view._out_nr = output_nr
    view._grad = None
    counter = view._version_counter = source._version_counter
    if type(counter) is InferenceCounter:  # See Note [Inference tensors]: no view, no history
        view._requires_grad = False
        view._grad_fn = None
        view._base = None
        return view
    view._grad_fn = grad_fn
    base = source._base
    view._base = base if base is not None else source
    view._view_chain = (source._view_chain, op, attrs)
    view._view_ver = counter.value
    # See Note [Views made without grad] (view_errors.py)
    if not enabled:
        view._requires_grad = source._requires_grad
        creation = source._creation
        if creation != "inference_mode":  # creation_of(...): an inference-mode source wins
            creation = "inference_mode" if grad_state.inference else "no_grad"
        view._creation = creation
        return view
    view._requires_grad = grad_fn is not None
    creation = (
        source._creation if op.n_outputs == 1 else creation_of(source._creation, "multi_output")
    )
    if creation is not None:
        view._creation = creation
    return view


def view_steps(chain) -> list:
    """The (op, attrs) steps of a view chain, from its base outwards."""
    steps = []
    while chain is not None:
        chain, op, attrs = chain
        steps.append((op, attrs))
    steps.reverse()
    return steps


def replay_view(tensor: Tensor, chain) -> Tensor:
    """Apply a view chain recorded at view creation to `tensor` (a base or a gradient)."""
    for op, attrs in view_steps(chain):
        tensor = apply(op, (tensor,), attrs)
    return tensor


def refresh_view(view) -> None:
    """Rebuild a stale view's history from its base's current one."""
    if view._view_ver == view._version_counter.value:
        return
    base = view._base
    if view._creation is not None and (view._grad_fn is not None or base._requires_grad):
        raise RuntimeError(view_rebase_error(view, indirect=True))
    view._view_ver = view._version_counter.value
    if base._requires_grad:
        regenerate(view)


def regenerate(view) -> None:
    """Make a view's history `AsStridedBackward0` over its base's current history.

    # Note [View replay]
    # Under `torch.autograd._force_original_view_tracking(True)` the view's own ops are
    # replayed on the base instead, so its history reads as it was made (`ViewBackward0`).
    """
    base = view._base
    old_fn, old_nr = view._grad_fn, view._out_nr
    if grad_state.view_replay:
        enabled, grad_state.enabled = grad_state.enabled, True
        try:
            replayed = replay_view(base, view._view_chain)
        finally:
            grad_state.enabled = enabled
        view._grad_fn, view._out_nr = replayed._grad_fn, replayed._out_nr
    else:
        node = AsStridedBackward0()
        node.next_functions = (gradient_edge(base),)
        node._chain = view._view_chain
        node._base_shape = base._data.shape
        node._base_dtype = base._data.dtype
        view._grad_fn = node
        view._out_nr = 0
    view._requires_grad = True
    view._view_ver = view._version_counter.value
    move_retains_grad(view, old_fn, old_nr)


class AsStridedBackward0(Node):
    """A view's history rebuilt over its base: scatter the view's gradient into the base."""

    __slots__ = ("_chain", "_base_shape", "_base_dtype")

    def apply(self, grads):
        g = grads[0]
        base_grad = _wrap(namespace(g._data).zeros(self._base_shape, self._base_dtype))
        replay_view(base_grad, self._chain).copy_(g)
        return (base_grad,)


above.refresh_view = refresh_view  # Tensor.grad_fn: See Note [Calls up the layers]
