"""The nodes of table ops: `OpNode` runs a row's backward (array backward or formulas), checks
its saved tensors, and frees them.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..._tensor import Tensor
from ...graph import passes, saved_hooks
from ...graph.errors import modified_inplace_error
from ...graph.grad_mode import state as grad_state
from ...graph.node import REQUIRING_GRAD, SECOND_BACKWARD, Node
from ...graph.saved import SavedOutput
from ...graph.saved_hooks import Packed
from ...runtime import dtypes
from . import record
from .opmath import widened_env

__all__ = [
    "OpNode",
    "StashOpNode",
    "VariadicOpNode",
    "unpack_saved",
    "unpack_one",
    "check_unmodified",
    "sum_to_input",
    "freed_detail",
    "saved_properties",
]

_EMPTY: dict = {}


class OpNode(Node):
    """The backward node of a table op; its class (`MulBackward0`) is made per entry."""

    __slots__ = ("_saved", "_versions", "_attrs", "_meta", "_freed_in")
    _op: object  # its OpDef (registry.py), set on each generated subclass

    def apply(self, grads):
        op = self._op
        saved = self._saved
        if saved is None:
            raise RuntimeError(SECOND_BACKWARD + freed_detail(self))
        # See Note [Array backwards]; while the doctor observes backward ops (Note [Op
        # observer]), formulas run as Tensor ops
        if (
            op.array_backward is not None
            and not grad_state.enabled
            and (record.observer is None or not record.observe_backward)
        ):
            result = op.array_backward(self, grads[0] if op.n_outputs == 1 else grads)
            if result is not None:
                return result
        env = unpack_saved(self) if saved else {}
        if self._attrs:
            env.update(self._attrs)
        env["g"] = grads[0] if op.n_outputs == 1 else grads
        if op.opmath_backward and not grad_state.enabled:  # See Note [Reduced-precision opmath]
            env = widened_env(env, Tensor._wrap)
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
        edges = self._edges  # See Note [Edges are differentiable inputs]
        if edges is REQUIRING_GRAD:  # every input required grad: `record` kept them all
            edges = None
        for i, (next_fn, _) in enumerate(self.next_functions):
            if next_fn is None:
                results.append(None)
                continue
            if edges is not None:
                i = edges[i]
            fn, read, many = readers[i]
            grad = fn(*read(env)) if many else fn(read(env))
            if grad is not None:
                shape, dtype = meta[i]
                data = grad._data
                if data.shape != shape or data.dtype != dtype:
                    grad = sum_to_input(grad, meta[i])
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
                grad = sum_to_input(grad, meta[i])
            results.append(grad)
        return tuple(results)

    def release(self) -> None:
        # index arrays among the attributes are tensors PyTorch saves (IndexBackward0's
        # indices, gather's index, a mask): freed too, so a second backward is refused
        if self._saved or self._attrs and _holds_arrays(self._attrs):
            self._saved = None
            self._freed_in = passes.current  # for the second-backward message

    @property
    def _saved_tensor_names(self) -> tuple:
        return tuple(self._saved) if self._saved else ()

    def _output_differentiable(self, output_nr: int) -> bool:
        return self._op.is_differentiable(output_nr)

    def __dir__(self):
        # the `_saved_*` properties are every name a row may save; PyTorch lists none of them
        made = type(self)._made_properties
        return [n for n in super().__dir__() if n not in made]

    _made_properties: frozenset = frozenset()  # See Note [Saved values as properties]

    # the SavedTensor protocol (graph/saved_hooks.py) ----------------------------------------
    def _saved_slot(self, key, freed: str):
        if self._saved is None:
            raise RuntimeError(freed)
        return self._saved[key]

    def _set_saved_slot(self, key, packed) -> None:
        self._saved = {**self._saved, key: packed}
        self._versions = {k: v for k, v in self._versions.items() if k != key}

    def _unpack_saved_slot(self, key):
        if self._saved is None:
            raise RuntimeError(SECOND_BACKWARD)
        return unpack_one(self, key, self._saved[key])

    # the inputs whose sizes and strides PyTorch's node keeps (`_saved_mat1_sym_sizes`)
    _layouts: tuple = ()


# Note [Saved values as properties]
# PyTorch exposes what a node saved as `_saved_self`, `_saved_other`, `_saved_result` (and
# the SavedTensor handles as `_raw_saved_self`...). Each node class gets these as properties,
# made with the class from its row (every name the row may save, under dyngrad's and
# PyTorch's names), rather than from a `__getattr__`: a class with `__getattr__` loses
# CPython's fast attribute reads, and the engine and the recording path read node
# attributes on every node.
def saved_properties(op) -> dict:
    """The `_saved_<name>` and `_raw_saved_<name>` properties of `op`'s node class."""
    keys = set(op.inputs) | set(op.attrs)
    for plan in op.plans.values():
        keys.update(name for name, _ in plan)
    if any(index < 0 for plan in op.plans.values() for _, index in plan):
        keys.update(f"out{i}" for i in range(op.n_outputs or 0))
    aliases = {ours: theirs for theirs, ours in _TORCH_SAVED_NAMES.items()}
    body = {}
    for key in keys:
        for name in {key, aliases.get(key, key)}:
            body[f"_saved_{name}"] = property(partial(_saved_value, key=key))
            body[f"_raw_saved_{name}"] = property(partial(_raw_saved_value, key=key))
        for suffix in _LAYOUT_SUFFIXES:
            for name in {key, aliases.get(key, key)}:
                body[f"_saved_{name}{suffix}"] = property(partial(_layout, key=name + suffix))
    body["_made_properties"] = frozenset(body)
    return body


def _saved_value(node, key: str):
    saved = node._saved
    if saved is None:
        raise RuntimeError(SECOND_BACKWARD)
    if key in saved:
        return node._unpack_saved_slot(key)
    attrs = node._attrs or _EMPTY
    if key in attrs:
        return attrs[key]
    op = node._op
    if not op.variadic and any(key == n for n, _ in op.plans[(1 << len(op.inputs)) - 1]):
        return None  # saved only when an input that needs it requires grad
    raise AttributeError(f"'{type(node).__name__}' object has no attribute '_saved_{key}'")


def _raw_saved_value(node, key: str):
    saved = node._saved
    if saved is None or _is_tensor_slot(saved.get(key, 0)):
        return saved_hooks.raw_saved(node, key)
    raise AttributeError(f"'{type(node).__name__}' object has no attribute '_raw_saved_{key}'")


def _is_tensor_slot(value) -> bool:
    return value is None or isinstance(value, (Tensor, SavedOutput, Packed))


_TORCH_SAVED_NAMES = {"self": "x", "other": "y", "result": "out"}
_LAYOUT_SUFFIXES = ("_sym_sizes", "_sym_strides")


def _layout(node: OpNode, key: str):
    """`_saved_<input>_sym_sizes` / `_sym_strides`: what PyTorch records of a matrix operand.

    Sizes come from the recorded metadata or the saved tensor (None where neither exists:
    only addmm's bias requires grad). PyTorch keeps strides only for an input that requires
    grad; dyngrad reads them off the saved tensor, and for one not saved assumes the usual
    layout (contiguous, or a weight's transpose under TBackward0)."""
    name, _, what = key.rpartition("_sym_")
    name = _TORCH_SAVED_NAMES.get(name, name)
    if name not in node._layouts:
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '_saved_{key}'")
    i = node._op.inputs.index(name)
    meta = node._meta[i]
    edge = i if type(node._edges) is not tuple else node._edges.index(i)
    value = (node._saved or _EMPTY).get(name)
    data = value._data if isinstance(value, Tensor) else None
    if what == "sizes":
        shape = meta[0] if meta is not None else None if data is None else data.shape
        return shape if shape is None else tuple(shape)
    if meta is None:
        return ()
    if data is not None:
        return tuple(s // data.itemsize for s in data.strides)
    shape = meta[0]
    if node.next_functions[edge][0].name() == "TBackward0":
        return tuple(reversed(_contiguous_strides(shape[::-1])))
    return _contiguous_strides(shape)


def _contiguous_strides(shape) -> tuple:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def sum_to_input(grad: Tensor, meta) -> Tensor:
    """A formula's gradient summed back to its input's shape and cast to its dtype: the one
    place (with the array backwards' `axis_sums.sum_to`) where broadcasting is undone."""
    shape, np_dtype = meta
    if grad._data.shape != shape:
        # shapes come from broadcasting, so sum_to_size's checks pass; under create_graph it
        # records SumBackward1 as PyTorch does
        grad = grad.sum_to_size(shape)
    if grad._data.dtype != np_dtype:
        grad = grad.to(dtypes.from_numpy_dtype(np_dtype))
    return grad


def unpack_saved(node: OpNode) -> dict:
    """The saved values of a node, after checking no saved tensor changed since it was saved
    (packed ones are unpacked instead: See Note [Saved tensor hooks])."""
    values = dict(node._saved)
    versions = node._versions
    for name, version in versions.items():
        value = values[name]
        check_unmodified(node, name, value, version)
        if type(value) is SavedOutput:
            values[name] = _rebuilt_output(node, value)
    if len(values) != len(versions):  # numbers, None, or packed values
        for name, value in values.items():
            if type(value) is Packed:
                values[name] = value.unpack(node)
    if node._n_outputs > 1 and "out0" in values:
        values["out"] = tuple(values.pop(f"out{i}") for i in range(node._n_outputs))
    return values


def unpack_one(node: OpNode, name: str, value):
    """One saved value of `node` as its formulas read it."""
    if type(value) is Packed:
        return value.unpack(node)
    version = node._versions.get(name)
    if version is None:  # a number, or None
        return value
    check_unmodified(node, name, value, version)
    return _rebuilt_output(node, value) if type(value) is SavedOutput else value


def _rebuilt_output(node: OpNode, value: SavedOutput) -> Tensor:
    if grad_state.enabled and node._op.is_differentiable(value.output_nr):
        # create_graph: the output's history is this very node, or the view's it wrote into
        # while that lives (See Note [Saved output of an in-place op on a view] in inplace.py)
        view_fn = node.__dict__.get("_view_grad_fn")
        fn = view_fn() if view_fn is not None else None
        if fn is not None:
            rebuilt = Tensor._wrap(value.data, True, fn, 0)
        else:
            rebuilt = Tensor._wrap(value.data, True, node, value.output_nr)
        rebuilt._version_counter = value.version_counter
        return rebuilt
    return value.tensor


def check_unmodified(node: OpNode, name: str, value, version: int) -> None:
    """PyTorch's error if a saved tensor (or saved output) changed in place since it was saved."""
    if type(value) is SavedOutput:
        if value.version_counter.value != version:
            # an output handed on to a foreach node is that node's (Note [Foreach nodes])
            owner = node.__dict__.get("_output_of")
            fn, nr = (node, value.output_nr) if owner is None else (owner[0]() or node, owner[1])
            _raise_modified(fn, name, value.tensor, version, fn, nr)
    elif value._version_counter.value != version:
        # PyTorch names the tensor's history as it is now (after the in-place write): a view
        # of a base written in place is AsStridedBackward0 by then (Note [In-place through a
        # view]), hence the property
        _raise_modified(node, name, value, version, value.grad_fn, value._out_nr)
    elif value._detached_at > node._seq:
        raise RuntimeError(DETACHED_INPLACE)


DETACHED_INPLACE = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This "
    "is not supported, please use out-of-place `.detach()` instead"
)


def _raise_modified(node, name, tensor, version, fn, out_nr):
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


def _holds_arrays(attrs: dict) -> bool:
    for value in attrs.values():
        if (
            type(value) is np.ndarray
            or type(value) is tuple
            and any(type(v) is np.ndarray for v in value)
        ):
            return True
    return False


def freed_detail(node) -> str:
    """dyngrad's account of a second backward through `node`: when its buffers went."""
    # See Note [Backward passes] in graph/passes.py
    freed = getattr(node, "_freed_in", None)
    if freed is None:
        return (
            f"\n[dyngrad] {node.name()} already released its saved tensors in an earlier "
            "backward. Pass retain_graph=True to the first backward() if you need a second "
            "one, or run the forward again to build a fresh graph."
        )
    number, first_seq, _ = freed
    now = passes.current
    head = (
        f"\n[dyngrad] {node.name()} released its saved tensors in backward pass #{number}; "
        f"this is pass #{now[0]}."
    )
    if now[2] > first_seq:
        return head + (
            f" The tensor you called backward() on was made after pass #{number}, yet its "
            "graph reaches into the graph that pass used: a value from an earlier iteration "
            "was carried into this one (a running total such as `total_loss += loss`, or a "
            "hidden state that was not detached). Fix: carry `.detach()` (or `.item()`) of "
            "it across iterations."
        )
    return head + (
        f" This graph was already used by backward pass #{number}. Fix: pass "
        "retain_graph=True to that first backward() if you need to go through the graph "
        "again, or run the forward again to build a fresh graph."
    )
