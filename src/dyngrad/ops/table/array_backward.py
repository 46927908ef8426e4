"""Array backwards: a node's backward computed on arrays when no graph of it is recorded.

# Note [Array backwards]
# A backward formula is written in Tensor ops so that `create_graph=True` differentiates it.
# Without create_graph (grad mode is off while the engine runs), that generality costs a
# Tensor and a dispatch for every step of every formula, which is most of a small model's
# backward. A row of the op table may therefore say how to compute its input gradients on
# arrays, in one of two ways:
#   array_backward=FORMULAS            its formulas use only arithmetic operators, which NumPy
#                                      arrays share with Tensors: the same formulas are
#                                      evaluated on the saved arrays;
#   array_backward=ArrayBackward(fn)   `fn(xp, needs, g, <names>)` returns every input's
#                                      gradient at once (`needs[i]` is truthy when input i
#                                      wants one), reading names as formulas do (a
#                                      multi-output node's `g` is a tuple of arrays, None
#                                      for an output that got no gradient), or None to leave
#                                      a case to the formulas (matmul's 1-d operands).
# An array backward never writes into `g` or a saved array: they may be shared (or read-only views).
# The node runs the kernel when grad mode is off and the formulas when it is on, so gradcheck
# (first order) checks the kernels and gradgradcheck (double backward) the formulas. Saved
# tensors are checked for in-place changes exactly as the formulas' path checks them. A node
# whose saved arrays differ in dtype from the incoming gradient (type promotion at work)
# leaves it to the formulas, which promote as PyTorch does; so does a backward the doctor
# watches, which looks at every op a formula runs (Note [Op observer]).
"""

from __future__ import annotations

import os

import numpy as np

from ..._tensor import Tensor
from ...graph.saved import SavedOutput
from ...graph.saved_hooks import Packed
from ..arrays.axis_sums import sum_to
from .generated import generated_function, parameters
from .nodes import check_unmodified

__all__ = ["FORMULAS", "ArrayBackward"]

_ndarray = np.ndarray


class ArrayBackward:
    """An op's input gradients at once, on arrays; see Note [Array backwards]."""

    def __init__(self, fn, *, mixed_dtypes: bool = False):
        self.fn = fn
        self.params = tuple(p.name for p in parameters(fn))[3:]  # after xp, needs, g
        # integer inputs (class targets, indices) are read as they are; floats must match g
        self.mixed_dtypes = mixed_dtypes

    def bind(self, op):
        fn, params = self.fn, self.params
        # a kernel reads only what the formulas read: nothing else is saved or recorded
        read = {p for f in op.formulas if f for p in f[1]} - {"g"}
        if op.stash:  # Note [Stashed intermediates] in nodes.py
            read.add("stash")
        unknown = set(params) - read - set(op.attrs)
        if unknown:
            raise TypeError(f"{op.name}: kernel reads names no formula reads {sorted(unknown)}")
        args = "".join(f", {_resolve(op, p)}" for p in params)
        call = f"fn(np, meta, gd{args})"
        if (
            type(op.edges) is tuple
        ):  # one gradient per edge (Note [Edges are differentiable inputs])
            call = f"_on_edges({call}, {op.edges!r})"
        return _generated(op, call, self.mixed_dtypes, {"fn": fn})


class _Formulas:
    def bind(self, op):
        names, calls = {}, []
        for i, formula in enumerate(op.formulas):
            if formula is None:  # an input without an edge (Note [Edges are differentiable inputs])
                continue
            fn, params = formula
            names[f"f{i}"] = fn
            args = ", ".join("gd" if p == "g" else _resolve(op, p) for p in params)
            calls.append(f"(f{i}({args}) if meta[{i}] else None)")
        return _generated(op, f"({', '.join(calls)},)", False, names)


FORMULAS = _Formulas()

# The callable a node runs in place of its formulas (None: run the formulas instead), made
# per row from its kernel's (or formulas') parameter names: a node's backward builds no dict
# of names and makes no call beyond the kernel's own (Note [Hot path]). An input's (shape,
# dtype) is recorded exactly when it needs a gradient, so the meta doubles as `needs`.
_RUN = """
def run(node, {parameter}):
{read}
    if type(ref) is not _ndarray or ref.dtype.kind != "f":
        return None
    if node._saved:
        env = _saved_arrays(node, ref.dtype, mixed_dtypes)
        if env is None:
            return None
    else:
        env = _EMPTY
    meta = node._meta
    attrs = node._attrs or _EMPTY
    grads = {grads}
    return None if grads is None else {hand_back}
"""
# (its parameter, how it reads the arrays, how it hands the gradients back) for the runner on
# tensors, which the node calls, and the same runner on arrays, for the compiled backward (See
# Note [Compiled backward] in _dynamo/compiled_node.py): there gradients in and out are arrays
# (None where there is none), each conformed to its input's shape and dtype as `_wrap` does.
_ON_TENSORS = (
    "g",
    """    if type(g) is tuple:  # a multi-output node (split, unbind): one gradient per output
        ref = next(t._data for t in g if t is not None)
        gd = tuple(None if t is None else t._data for t in g)
    else:
        ref = gd = g._data""",
    "_wrap(grads, {edge_meta}, g)",
)
_ON_ARRAYS = (
    "gd",
    "    ref = gd if type(gd) is not tuple else next(a for a in gd if a is not None)",
    "_conformed(grads, {edge_meta})",
)
_EMPTY: dict = {}


def _resolve(op, name: str) -> str:
    # the expression that reads `name` in a generated runner: an input's shape, the stash,
    # an attribute, else a saved value (None when not saved)
    shape_names = op.shape_names if op.reads_shapes else ()
    if name in shape_names:
        i = shape_names.index(name)
        return f"(meta[{i}][0] if meta[{i}] is not None else None)"
    if name == "stash" and op.stash:
        return "node._stash"
    if name in op.attrs:
        return f"(attrs[{name!r}] if {name!r} in attrs else env.get({name!r}))"
    return f"env.get({name!r})"


def _generated(op, grads: str, mixed_dtypes: bool, names: dict):
    # named after the node (`MulBackward0`), with its source in linecache under a name of its
    # own, so profilers and tracebacks show which backward ran and its generated line
    name = op.node_name if op.records else op.name
    edge_meta = "meta"  # one gradient per edge: See Note [Edges are differentiable inputs]
    if type(op.edges) is tuple:
        edge_meta = "(" + "".join(f"meta[{i}], " for i in op.edges) + ")"
    runners = []
    for (parameter, read, hand_back), kind in (
        (_ON_TENSORS, "array backward"),
        (_ON_ARRAYS, "compiled backward"),
    ):
        hand_back = hand_back.format(edge_meta=edge_meta)
        source = _RUN.format(parameter=parameter, read=read, grads=grads, hand_back=hand_back)
        source = source.replace("def run(", f"def {name}(", 1)
        filename = os.path.join(os.path.dirname(__file__), f"<{kind} of {name}>")
        namespace = {
            "np": np,
            "_ndarray": _ndarray,
            "_EMPTY": _EMPTY,
            "_wrap": _wrap,
            "_conformed": _conformed,
            "_on_edges": _on_edges,
            "_saved_arrays": _saved_arrays,
            "mixed_dtypes": mixed_dtypes,
            **names,
        }
        # Note [Generated functions]: each is compiled at its first call
        runners.append(generated_function(name, source, filename, namespace))
    runners[0].on_arrays = runners[1]
    return runners[0]


def _saved_arrays(node, dtype, mixed_dtypes: bool):
    env = {}
    versions = node._versions
    seq = node._seq
    for name, value in node._saved.items():
        # (the version compared here, check_unmodified called only to raise its error)
        if type(value) is SavedOutput:
            if value.version_counter.value != versions[name]:
                check_unmodified(node, name, value, versions[name])
            value = value.data
        elif isinstance(value, Tensor):
            if value._version_counter.value != versions[name] or value._detached_at > seq:
                check_unmodified(node, name, value, versions[name])
            value = value._data
            if type(value) is not _ndarray:
                return None
        elif type(value) is Packed:  # unpacked once, by the formulas: Note [Saved tensor hooks]
            return None
        else:  # a Python number or None
            env[name] = value
            continue
        if value.dtype != dtype and not (mixed_dtypes and value.dtype.kind in "iub"):
            return None
        env[name] = value
    return env


def _on_edges(grads, edges: tuple):
    # a kernel's gradients (one per input) on the node's edges: the inputs with formulas
    return None if grads is None else tuple(grads[i] for i in edges)


def _wrap(grads, meta, g):
    # One Tensor per distinct array: a gradient handed on as is stays the very tensor that
    # came in (the engine tells shared gradients by identity, see `dispatched` in engine.py)
    if len(grads) != len(meta):  # a kernel's own bug, never the user's
        raise RuntimeError(f"array kernel returned {len(grads)} gradients for {len(meta)} inputs")
    if type(g) is not tuple:
        if len(meta) == 1:  # most rows: no bookkeeping of shared arrays needed
            grad, m = grads[0], meta[0]
            if not m or grad is None:
                return (None,)
            t = g if grad is g._data else _tensor(grad)
            data = t._data
            return (t if data.shape == m[0] and data.dtype == m[1] else _conform(t, m),)
        made = {id(g._data): g}
    else:
        made = {id(t._data): t for t in g if t is not None}
    out = []
    for grad, m in zip(grads, meta):
        if not m or grad is None:
            out.append(None)
            continue
        t = made.get(id(grad))
        if t is None:
            t = made[id(grad)] = _tensor(grad)
        data = t._data
        out.append(t if data.shape == m[0] and data.dtype == m[1] else _conform(t, m))
    return tuple(out)


def _conformed(grads, meta):
    # `_wrap` on arrays: each gradient an ndarray of its input's shape and dtype, or None
    if len(grads) != len(meta):  # a kernel's own bug, never the user's
        raise RuntimeError(f"array kernel returned {len(grads)} gradients for {len(meta)} inputs")
    out = []
    for grad, m in zip(grads, meta):
        if not m or grad is None:
            out.append(None)
            continue
        if type(grad) is not _ndarray:
            grad = np.asarray(grad)  # a NumPy scalar from 0-d arithmetic
        if grad.shape != m[0]:
            grad = np.asarray(sum_to(np, grad, m[0]))
        if grad.dtype != m[1]:
            grad = grad.astype(m[1], copy=False)
        out.append(grad)
    return tuple(out)


def _tensor(grad):
    if type(grad) is not _ndarray:
        grad = np.asarray(grad)  # a NumPy scalar from 0-d arithmetic
    return Tensor._wrap(grad)


def _conform(t, m):
    """`t` summed back to its input's shape and cast to its dtype (as OpNode's `conform`)."""
    shape, dtype = m
    data = t._data
    if data.shape == shape and data.dtype == dtype:
        return t
    if data.shape != shape:
        data = np.asarray(sum_to(np, data, shape))  # a full sum gives a scalar
    return Tensor._wrap(data.astype(dtype, copy=False))
