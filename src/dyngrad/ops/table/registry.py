"""The op table machinery: `defop` registers an op, `apply` runs it and records its node.

# Note [One op, one entry]
# An entry holds the forward on arrays (`fwd(xp, *inputs, **attrs)`) and one backward
# formula per differentiable input, written with Tensor ops so that `create_graph=True`
# differentiates the formulas themselves. A formula's parameter names say what it reads:
#   g          the gradient of the output (a tuple of them for multi-output ops)
#   out        the op's output (saved without a reference cycle, see Note [Graph ownership])
#   x, y, ...  the op's inputs by the forward's parameter names (saved tensors)
#   dim, ...   the forward's keyword-only attributes (kept, never "freed")
#   x_shape    an input's shape (recorded for every input that needs grad)
# From the names the registry knows, at definition time, what to save for every combination
# of inputs that require grad: a frozen weight's op saves no activation.
# Formulas never un-broadcast; the node sums each gradient back to its input's shape once.
"""

from __future__ import annotations

import inspect
from collections import defaultdict
from operator import itemgetter

import numpy as np

from ..._tensor import Tensor, VersionCounter, user_site
from ...backend import dtypes, namespace
from ...graph import anomaly_mode as anomaly
from ...graph import errors as graph_errors
from ...graph import passes
from ...graph.grad_mode import state as grad_state
from ...graph.node import SECOND_BACKWARD, Node, _sequence, grad_accumulator
from ...graph.saved import SavedOutput

__all__ = ["OpDef", "OpNode", "defop", "apply", "OPS", "edge"]

OPS: dict[str, OpDef] = {}
_EMPTY: dict = {}
_new = object.__new__
_ndarray = np.ndarray
_NO_EDGE = (None, 0)
_next_seq = _sequence.__next__
# Note [Op observer]: `dyngrad.doctor` sets this to `observer(op, args, attrs, result)` while it
# watches; every op checks it once (a global read), so it costs ~nothing while None.
observer = None


class OpNode(Node):
    """The backward node of a table op; its class (`MulBackward0`) is made per entry."""

    __slots__ = ("_saved", "_versions", "_attrs", "_meta", "_freed_in")
    _op: OpDef

    def apply(self, grads):
        op = self._op
        saved = self._saved
        if saved is None:
            raise RuntimeError(SECOND_BACKWARD + _freed_detail(self))
        # See Note [Array kernels]; while the doctor observes ops, formulas run as Tensor ops
        if op.kernel is not None and not grad_state.enabled and observer is None:
            result = op.kernel(self, grads[0] if op.n_outputs == 1 else grads)
            if result is not None:
                return result
        env = unpack_saved(self) if saved else {}
        if self._attrs:
            env.update(self._attrs)
        env["g"] = grads[0] if op.n_outputs == 1 else grads
        meta = self._meta
        if op.variadic:
            return self._apply_variadic(op, env, meta)
        if op.reads_shapes:
            shape_names = op.shape_names
            for i, m in enumerate(meta):
                if m is not None:
                    env[shape_names[i]] = m[0]
        results = []
        readers = op.readers
        for i, (next_fn, _) in enumerate(self.next_functions):
            if next_fn is None:
                results.append(None)
                continue
            fn, read, many = readers[i]
            grad = fn(*read(env)) if many else fn(read(env))
            if grad is not None:
                shape, dtype = meta[i]
                data = grad._data
                if data.shape != shape or data.dtype != dtype:
                    grad = conform(grad, meta[i])
            results.append(grad)
        return tuple(results)

    def _apply_variadic(self, op, env, meta):
        # one formula for every input: `i` says which, `<name>_shape` its shape
        results = []
        fn, params = op.formulas[0]
        for i, (next_fn, _) in enumerate(self.next_functions):
            if next_fn is None:
                results.append(None)
                continue
            env["i"] = i
            env[op.shape_names[0]] = meta[i][0]
            grad = fn(*[env[p] for p in params])
            if grad is not None:
                grad = conform(grad, meta[i])
            results.append(grad)
        return tuple(results)

    def release(self) -> None:
        if self._saved:
            self._saved = None
            self._freed_in = passes.current  # for the second-backward message

    @property
    def _saved_tensor_names(self) -> tuple:
        return tuple(self._saved) if self._saved else ()

    def __getattr__(self, name):
        # PyTorch exposes saved values as `_saved_self`, `_saved_other`, `_saved_result`
        if name.startswith("_saved_") and not name.startswith("_saved_tensor"):
            key = _TORCH_SAVED_NAMES.get(name[7:], name[7:])
            saved = object.__getattribute__(self, "_saved")
            if saved is None:
                raise RuntimeError(SECOND_BACKWARD)
            if key in saved:
                return unpack_saved(self)[key]
            attrs = object.__getattribute__(self, "_attrs") or _EMPTY
            if key in attrs:
                return attrs[key]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


_TORCH_SAVED_NAMES = {"self": "x", "other": "y", "result": "out"}


_sum_to_size = None  # ops.shape's SUM_TO_SIZE row, looked up on first use (import order)


def conform(grad: Tensor, meta) -> Tensor:
    """Sum a gradient back to its input's shape and cast it to the input's dtype."""
    global _sum_to_size
    shape, np_dtype = meta
    if grad._data.shape != shape:
        if _sum_to_size is None:
            from ..shape import reshaping as shape_ops

            _sum_to_size = shape_ops.SUM_TO_SIZE
        # shapes come from broadcasting, so no check is needed (as in Tensor.sum_to_size)
        grad = apply(_sum_to_size, (grad,), {"size": shape})
    if grad._data.dtype != np_dtype:
        grad = grad.to(dtypes.from_numpy_dtype(np_dtype))
    return grad


def unpack_saved(node: OpNode) -> dict:
    """The saved values of a node, after checking no saved tensor changed since it was saved."""
    values = dict(node._saved)
    for name, version in node._versions.items():
        value = values[name]
        check_unmodified(node, name, value, version)
        if type(value) is SavedOutput:
            if grad_state.enabled and _differentiable(node._op, value.output_nr):
                # create_graph: the output's history is this very node
                rebuilt = Tensor._wrap(value.data, True, node, value.output_nr)
                rebuilt._vc = value.vc
                values[name] = rebuilt
            else:
                values[name] = value.tensor
    if node._n_outputs > 1 and "out0" in values:
        values["out"] = tuple(values.pop(f"out{i}") for i in range(node._n_outputs))
    return values


def check_unmodified(node: OpNode, name: str, value, version: int) -> None:
    """PyTorch's error if a saved tensor (or saved output) changed in place since it was saved."""
    if type(value) is SavedOutput:
        if value.vc.value != version:
            _raise_modified(node, name, value.tensor, version, node, value.output_nr)
    elif value._vc.value != version:
        # PyTorch names the tensor's history as it is now (after the in-place write)
        _raise_modified(node, name, value, version, value._fn, value._out_nr)


def _raise_modified(node, name, tensor, version, fn, out_nr):
    from ...graph.errors import modified_inplace_error

    raise modified_inplace_error(node, name, tensor, version, fn, out_nr)


# Note [Stashed intermediates]
# A few forwards compute an intermediate their backward needs again, at a cost far above the
# backward's own arithmetic: GELU's cdf, an erf of ~40 NumPy passes over the activation. Such
# a row is `stash=True`: the node keeps the intermediate beside (not among) its saved tensors,
# the array kernel reads it, and release() drops it with the saved tensors. It is exactly the
# array the backward would compute again, so gradients are unchanged bit for bit; the formulas
# (double backward) ignore it and recompute. The price is holding it until backward.
class StashOpNode(OpNode):
    """The node of a `stash=True` row: one extra slot, freed with the saved tensors."""

    __slots__ = ("_stash",)

    def release(self) -> None:
        super().release()
        self._stash = None


class VariadicOpNode(OpNode):
    """The node of an op whose number of outputs is set per call (`outputs=None`)."""

    __slots__ = ("_n_outputs",)


def _differentiable(op: OpDef, output_nr: int) -> bool:
    return op.differentiable is None or output_nr in op.differentiable


def _freed_detail(node) -> str:
    # See Note [Backward passes] in engine.py
    freed = getattr(node, "_freed_in", None)
    if freed is None:
        return (f"\n[dyngrad] {node.name()} already released its saved tensors in an earlier "
                "backward. Pass retain_graph=True to the first backward() if you need a second "
                "one, or run the forward again to build a fresh graph.")
    number, first_seq, _ = freed
    now = passes.current
    head = (f"\n[dyngrad] {node.name()} released its saved tensors in backward pass #{number}; "
            f"this is pass #{now[0]}.")
    if now[2] > first_seq:
        return head + (
            f" The tensor you called backward() on was made after pass #{number}, yet its "
            "graph reaches into the graph that pass used: a value from an earlier iteration "
            "was carried into this one (a running total such as `total_loss += loss`, or a "
            "hidden state that was not detached). Fix: carry `.detach()` (or `.item()`) of "
            "it across iterations.")
    return head + (
        f" This graph was already used by backward pass #{number}. Fix: pass "
        "retain_graph=True to that first backward() if you need to go through the graph "
        "again, or run the forward again to build a fresh graph.")


class OpDef:
    """One row of the op table."""

    __slots__ = ("name", "fwd", "inputs", "attrs", "formulas", "node_cls", "plans", "promote",
                 "view", "n_outputs", "differentiable", "variadic", "shape_names", "readers",
                 "reads_shapes", "kernel", "stash")

    def __repr__(self) -> str:
        return f"OpDef({self.name})"


def _node_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_")) + "Backward0"


def defop(name: str, fwd, grads: dict | None = None, *, node: str | None = None,
          promote=None, view: bool = False, outputs: int | None = 1,
          differentiable: tuple | None = None, kernel=None, stash: bool = False) -> OpDef:
    """Register an op: its forward on arrays and each input's backward formula.

    `promote` casts the input arrays first (see `ops.promotion`); `view=True` marks an output
    that shares its input's array and version counter; `differentiable` lists which outputs
    carry gradients (the indices output of `max(dim)` does not). `outputs=None` is an op whose
    forward returns as many outputs as the call asks (`unbind`, `split`), all differentiable.
    A forward with `*tensors` takes any number of inputs (`cat`, `stack`); its one formula
    reads `i`, the input's position, and never the inputs themselves. `kernel` computes the
    input gradients on arrays when no graph is recorded (Note [Array kernels], kernels.py).
    `stash=True` is a forward that returns (output, stash): an intermediate its kernel reads
    as `stash` instead of computing it again (Note [Stashed intermediates]).
    """
    sig = inspect.signature(fwd)
    params = list(sig.parameters.values())[1:]  # after xp
    op = OpDef()
    op.name = name
    op.fwd = fwd
    op.inputs = tuple(p.name for p in params if p.kind == p.POSITIONAL_OR_KEYWORD)
    op.variadic = any(p.kind == p.VAR_POSITIONAL for p in params)
    if op.variadic:
        op.inputs = tuple(p.name for p in params if p.kind == p.VAR_POSITIONAL)
    op.shape_names = tuple(i + "_shape" for i in op.inputs)
    op.attrs = tuple(p.name for p in params if p.kind == p.KEYWORD_ONLY)
    reserved = {"g", "out", "i"} & (set(op.inputs) | set(op.attrs))
    if reserved:  # formulas read these names as the gradient, the output, the input index
        raise TypeError(f"{name}: inputs and attributes may not be named {sorted(reserved)}")
    op.promote = promote
    op.stash = stash
    op.view = view
    op.n_outputs = outputs
    if differentiable is None and outputs is not None:
        differentiable = tuple(range(outputs))
    op.differentiable = differentiable
    grads = grads or {}
    unknown = set(grads) - set(op.inputs)
    if unknown:
        raise TypeError(f"{name}: formulas for unknown inputs {sorted(unknown)}")
    known = {"g", "out"} | set(op.inputs) | set(op.attrs) | {i + "_shape" for i in op.inputs}
    if op.variadic:
        known = known - set(op.inputs) - {"out"} | {"i"}
    op.formulas = []
    for inp in op.inputs:
        formula = grads.get(inp)
        if formula is None:
            op.formulas.append(None)
            continue
        fparams = tuple(inspect.signature(formula).parameters)
        bad = set(fparams) - known
        if bad:
            raise TypeError(f"{name}: formula for {inp} reads unknown names {sorted(bad)}")
        op.formulas.append((formula, fparams))
    op.formulas = tuple(op.formulas)
    op.readers = tuple(_reader(f) for f in op.formulas)
    op.reads_shapes = any(p in op.shape_names for f in op.formulas if f for p in f[1])
    op.plans = _save_plans(op) if not op.variadic else defaultdict(tuple)  # saves nothing
    cls_name = node or _node_name(name)
    body = {"__slots__": (), "_op": op}
    if outputs is not None:
        body["_n_outputs"] = outputs
    base = StashOpNode if stash else OpNode if outputs is not None else VariadicOpNode
    op.node_cls = type(cls_name, (base,), body) if grads else None
    op.kernel = kernel.bind(op) if kernel is not None else None
    OPS[name] = op
    return op


def _reader(formula):
    # (formula, getter of its arguments from the node's names, whether the getter gives a
    # tuple): a C itemgetter instead of a list built per backward call (Note [Hot path])
    if formula is None:
        return None
    fn, params = formula
    if len(params) == 1:
        return fn, itemgetter(params[0]), False
    return fn, (itemgetter(*params) if params else lambda env: ()), True


def _save_plans(op: OpDef) -> dict:
    # For every mask of inputs that require grad, the (name, input index) pairs to save;
    # index -1 stands for the output.
    plans = {}
    for mask in range(1 << len(op.inputs)):
        names: list[str] = []
        for i, formula in enumerate(op.formulas):
            if mask >> i & 1 and formula is not None:
                names += [p for p in formula[1] if p in op.inputs or p == "out"]
        ordered = dict.fromkeys(names)
        plans[mask] = tuple((n, -1 if n == "out" else op.inputs.index(n)) for n in ordered)
    return plans


def edge(t: Tensor):
    """The (node, output_nr) a gradient for `t` flows into."""
    if t._base is not None and t._view_ver != t._vc.value:
        from .views import refresh_view

        refresh_view(t)
    fn = t._fn
    if fn is not None:
        return (fn, t._out_nr)
    return (grad_accumulator(t), 0)


def apply(op: OpDef, args: tuple, attrs: dict = _EMPTY):
    """Run `op` on `args` (tensors or numbers) and record a node when a gradient is needed."""
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    if op.promote is not None:
        arrays = op.promote(arrays, args)
    first = arrays[0]
    try:
        out = op.fwd(np if type(first) is _ndarray else namespace(first), *arrays, **attrs)
    except (ValueError, IndexError, TypeError, MemoryError) as exc:
        from .errors import translate

        raise translate(op, args, attrs, exc) from None
    if op.stash:  # See Note [Stashed intermediates]
        out, stash = out
    mask = 0
    if grad_state.enabled and op.node_cls is not None:
        for i, a in enumerate(args):
            if isinstance(a, Tensor) and a._rg:
                mask |= 1 << i
    if not mask:
        result = _wrap_outputs(op, args, attrs, out, None)
        if not grad_state.enabled and op.node_cls is not None:
            _note_no_grad(result, args)
        if observer is not None:  # See Note [Op observer]
            observer(op, args, attrs, result)
        return result
    node = _new(op.node_cls)
    node._seq = _next_seq()
    if op.n_outputs is None:
        node._n_outputs = len(out)
    edges = []
    meta = []
    for i, a in enumerate(args):
        if mask >> i & 1:
            edges.append(edge(a))
            meta.append((a._data.shape, a._data.dtype))
        else:
            edges.append(_NO_EDGE)
            meta.append(None)
    node.next_functions = tuple(edges)
    node._meta = tuple(meta)
    node._attrs = attrs
    if op.stash:
        node._stash = stash
    if anomaly.state.enabled:
        anomaly.record(node)
    result = _wrap_outputs(op, args, attrs, out, node)
    _save(node, op.plans[mask], args, result)
    if observer is not None:  # See Note [Op observer]
        observer(op, args, attrs, result)
    return result


def _note_no_grad(result, args) -> None:
    # Grad mode is off; if an input requires grad, remember where the output lost its history
    # for the "does not require grad" error (see `explain_no_grad`). Not on the grad-on path.
    if grad_state.inference or grad_state.backward:
        return
    for a in args:
        if isinstance(a, Tensor) and a._rg:
            site = user_site(3)
            for t in result if type(result) is tuple else (result,):
                t._nograd_site = site
            graph_errors.last_no_grad_site = site
            return


def _save(node: OpNode, plan: tuple, args: tuple, result) -> None:
    saved = {}
    versions = {}
    for name, index in plan:
        if index >= 0:
            value = args[index]
            saved[name] = value
            if isinstance(value, Tensor):
                versions[name] = value._vc.value
        elif node._op.n_outputs == 1:
            saved[name] = _saved_output(result, 0)
            versions[name] = result._vc.value
        else:  # every output of a multi-output op, e.g. max(dim)'s values and indices
            for i, out in enumerate(result):
                saved[f"{name}{i}"] = _saved_output(out, i)
                versions[f"{name}{i}"] = out._vc.value
    node._saved = saved
    node._versions = versions


def _saved_output(out: Tensor, output_nr: int) -> SavedOutput:
    return SavedOutput(out._data, out._vc, output_nr)


def _as_array(x):
    return x if type(x) is np.ndarray else np.asarray(x)


def _wrap_outputs(op: OpDef, args, attrs, out, node):
    if op.n_outputs == 1:
        if type(out) is not _ndarray:
            out = _as_array(out)
        t = _new(Tensor)
        t._data = out
        t._rg = node is not None
        t._fn = node
        t._out_nr = 0
        t._grad = None
        t._vc = VersionCounter()
        t._base = None
        if op.view:
            _make_view(t, args[0], op, attrs)
        return t
    results = []
    for i, o in enumerate(out):
        differentiable = node is not None and _differentiable(op, i)
        t = Tensor._wrap(_as_array(o), differentiable, node if differentiable else None, i)
        if op.view:
            _make_view(t, args[0], op, attrs)
        results.append(t)
    return tuple(results)


def _make_view(view: Tensor, source: Tensor, op: OpDef, attrs) -> None:
    # See Note [Version counters]: a view shares its base's counter.
    view._vc = source._vc
    view._base = source._base if source._base is not None else source
    view._view_chain = (source._view_chain or ()) + ((op, attrs),)
    view._view_ver = source._vc.value
