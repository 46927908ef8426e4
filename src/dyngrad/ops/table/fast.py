"""The fast callables of the ops users call most, generated from their op-table rows."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor, VersionCounter
from ...graph import anomaly_mode as anomaly
from ...graph.grad_mode import state as grad_state
from ...graph.saved import SavedOutput
from . import registry
from .registry import (
    _EMPTY,
    _NO_EDGE,
    OpDef,
    _ndarray,
    _new,
    _next_seq,
    _note_no_grad,
    _save,
    apply,
    edge,
)

__all__ = ["binary", "unary"]

# Note [Hot path]
# `x + y` on small tensors is dominated by Python, not by NumPy, so the ops users call most
# get a generated fast callable. It does exactly what `apply` does for the common case
# (tensors of one dtype on the CPU, or a tensor and a Python number) with no loops, no
# kwargs and no intermediate lists, and hands every other case to `apply`.


def _fast_edge(t: Tensor):
    fn = t._fn
    if fn is not None and t._base is None:
        return (fn, t._out_nr)
    return edge(t)


def binary(op: OpDef):
    """The fast form of an elementwise two-input row: `binary(MUL)(x, y) == apply(MUL, (x, y))`.

    `x` is a Tensor; `y` a Tensor or a Python number.
    """
    fwd = op.fwd
    differentiable = op.node_cls is not None
    assert not op.stash, "a stash=True row takes the general path"

    def run(x, y):
        xd = x._data
        # integer and bool tensors take the general path: their promotion rules differ
        if type(xd) is not _ndarray or xd.dtype.kind != "f":
            return apply(op, (x, y))
        if isinstance(y, Tensor):
            yd = y._data
            if xd.dtype != yd.dtype:
                return apply(op, (x, y))
            yrg = y._rg
        elif type(y) is float or type(y) is int:
            yd, yrg = y, False
        else:
            return apply(op, (x, y))
        try:
            out = fwd(np, xd, yd)
        except (ValueError, IndexError, TypeError, MemoryError) as exc:
            from .errors import translate

            raise translate(op, (x, y), _EMPTY, exc) from None
        if type(out) is not _ndarray:
            out = np.asarray(out)
        t = _new(Tensor)
        t._data = out
        t._out_nr = 0
        t._grad = None
        t._vc = VersionCounter()
        t._base = None
        xrg = x._rg
        if (xrg or yrg) and differentiable and grad_state.enabled:
            node = _new(node_cls)
            node._seq = _next_seq()
            if xrg:
                fn = x._fn
                ex = (fn, x._out_nr) if fn is not None and x._base is None else edge(x)
                mx = (xd.shape, xd.dtype)
            else:
                ex = mx = None
            if yrg:
                fn = y._fn
                ey = (fn, y._out_nr) if fn is not None and y._base is None else edge(y)
                node.next_functions = (ex or _NO_EDGE, ey)
                node._meta = (mx, (yd.shape, yd.dtype))
                plan = plans[1 + 2 * xrg] if xrg else plans[2]
            else:
                node.next_functions = (ex, _NO_EDGE)
                node._meta = (mx, None)
                plan = plans[1]
            node._attrs = _EMPTY
            t._rg = True
            t._fn = node
            if plan and inputs_only:  # mul, div...: inlined `_save` for saved inputs
                saved = {}
                versions = {}
                for name, index in plan:
                    value = y if index else x
                    saved[name] = value
                    if type(value) is not float and type(value) is not int:
                        versions[name] = value._vc.value
                node._saved = saved
                node._versions = versions
            elif plan:
                _save(node, plan, (x, y), t)
            else:
                node._saved = _EMPTY
                node._versions = _EMPTY
            if anomaly.state.enabled:
                anomaly.record(node)
        else:
            t._rg = False
            t._fn = None
            if (xrg or yrg) and differentiable:  # grad mode is off: see `_note_no_grad`
                _note_no_grad(t, (x, y))
        if registry.observer is not None:  # See Note [Op registry.observer]
            registry.observer(op, (x, y), _EMPTY, t)
        return t

    node_cls = op.node_cls
    plans = op.plans
    inputs_only = all(index >= 0 for plan in plans.values() for _, index in plan)
    run.__name__ = op.name
    return run


def unary(op: OpDef):
    """The fast form of a one-input row without attributes: `unary(EXP)(x)`."""
    fwd = op.fwd
    differentiable = op.node_cls is not None
    assert not op.stash, "a stash=True row takes the general path"

    def run(x):
        try:
            xd = x._data
        except AttributeError:
            raise TypeError(f"{op.name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(x).__name__}") from None
        if type(xd) is not _ndarray or xd.dtype.kind != "f":
            return apply(op, (x,))
        out = fwd(np, xd)
        if type(out) is not _ndarray:
            out = np.array(out)  # a NumPy scalar from a full reduction
        t = _new(Tensor)
        t._data = out
        t._out_nr = 0
        t._grad = None
        t._vc = VersionCounter()
        t._base = None
        if x._rg and differentiable and grad_state.enabled:
            node = _new(node_cls)
            node._seq = _next_seq()
            fn = x._fn
            node.next_functions = ((fn, x._out_nr) if fn is not None and x._base is None
                                   else edge(x),)
            node._meta = ((xd.shape, xd.dtype),)
            node._attrs = _EMPTY
            t._rg = True
            t._fn = node
            if saves_out:  # relu, exp, tanh, sigmoid...: only the output, inlined
                saved = _new(SavedOutput)
                saved.data = out
                saved.vc = t._vc
                saved.output_nr = 0
                saved._tensor = None
                node._saved = {"out": saved}
                node._versions = {"out": 0}
            elif plan:
                _save(node, plan, (x,), t)
            else:
                node._saved = _EMPTY
                node._versions = _EMPTY
            if anomaly.state.enabled:
                anomaly.record(node)
        else:
            t._rg = False
            t._fn = None
            if x._rg and differentiable:  # grad mode is off: see `_note_no_grad`
                _note_no_grad(t, (x,))
        if registry.observer is not None:  # See Note [Op registry.observer]
            registry.observer(op, (x,), _EMPTY, t)
        return t

    node_cls = op.node_cls
    plan = op.plans[1]
    saves_out = plan == (("out", -1),) and op.n_outputs == 1
    run.__name__ = op.name
    return run
