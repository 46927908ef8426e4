"""The fast callables of the ops users call most, generated from their op-table rows."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor, new_tensor
from ...graph.grad_mode import state as grad_state
from ...runtime.sparse_coo import SparseCOO
from . import record as recording
from .errors import translate
from .record import apply, note_no_grad, record

__all__ = ["binary", "unary", "named"]

# Note [Hot path]
# `x + y` on small tensors is dominated by Python, not by NumPy, so the ops users call most
# get a fast callable. It does what `apply` does for the common case (tensors of one float
# dtype on the CPU, or a tensor and a Python number) without loops, keywords or promotion,
# and hands every other case to `apply`. What it records goes through the same functions as
# `apply` (See Note [One recording path]); only the tests of what to do are its own. Each is
# named after its op (`mul`), so profilers and tracebacks show the op, not a closure.

_EMPTY: dict = {}
_new = object.__new__
_ndarray = np.ndarray
_wrap = new_tensor
_ERRORS = (ValueError, IndexError, TypeError, MemoryError)


def named(fn, name: str):
    """`fn` with its code object renamed, so that profilers and tracebacks show `name`."""
    fn.__code__ = fn.__code__.replace(co_name=name, co_qualname=name)
    fn.__name__ = fn.__qualname__ = name
    return fn


def binary(op):
    """The fast form of an elementwise two-input row: `binary(MUL)(x, y) == apply(MUL, (x, y))`.

    `x` is a Tensor; `y` a Tensor or a Python number.
    """
    fwd, node_cls, plans = op.fwd, op.node_cls, op.plans
    differentiable = node_cls is not None
    assert not op.stash, "a stash=True row takes the general path"

    def run(x, y):
        if recording.autocast is not None:  # amp hook: See Note [Autocast hook]
            return apply(op, (x, y))
        xd = x._data
        # integer and bool tensors take the general path: their promotion rules differ
        if type(xd) is not _ndarray or xd.dtype.kind != "f":
            return apply(op, (x, y))
        if isinstance(y, Tensor):
            yd = y._data
            if xd.dtype != yd.dtype:
                return apply(op, (x, y))
            yrg = y._requires_grad
        elif type(y) is float or type(y) is int:
            yd, yrg = y, False
        else:
            return apply(op, (x, y))
        try:
            out = fwd(np, xd, yd)
        except _ERRORS as exc:
            raise translate(op, (x, y), _EMPTY, exc) from None
        # (issue 14, sparse COO) dense * sparse is sparse: See Note [Sparse COO arrays]
        if type(out) is not _ndarray and type(out) is not SparseCOO:
            out = np.asarray(out)
        mask = x._requires_grad | yrg << 1
        if mask and differentiable and grad_state.enabled:
            node = _new(node_cls)
            t = _wrap(out, True, node)
            record(node, (x, y), mask, _EMPTY, plans[mask], t)
        else:
            t = _wrap(out)
            if mask and differentiable:  # grad mode is off
                note_no_grad(t, (x, y))
        if recording.observer is not None:  # See Note [Op observer]
            recording.observer(op, (x, y), _EMPTY, t)
        return t

    return named(run, op.name)


def unary(op):
    """The fast form of a one-input row without attributes: `unary(EXP)(x)`."""
    fwd, node_cls = op.fwd, op.node_cls
    differentiable = node_cls is not None
    plan = op.plans[1]
    assert not op.stash, "a stash=True row takes the general path"

    def run(x):
        if recording.autocast is not None:  # amp hook: See Note [Autocast hook]
            return apply(op, (x,))
        try:
            xd = x._data
        except AttributeError:
            raise TypeError(
                f"{op.name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
            ) from None
        if type(xd) is not _ndarray or xd.dtype.kind != "f":
            return apply(op, (x,))
        out = fwd(np, xd)
        if type(out) is not _ndarray:
            out = np.array(out)  # a NumPy scalar from a full reduction
        if x._requires_grad and differentiable and grad_state.enabled:
            node = _new(node_cls)
            t = _wrap(out, True, node)
            record(node, (x,), 1, _EMPTY, plan, t)
        else:
            t = _wrap(out)
            if x._requires_grad and differentiable:  # grad mode is off
                note_no_grad(t, (x,))
        if recording.observer is not None:  # See Note [Op observer]
            recording.observer(op, (x,), _EMPTY, t)
        return t

    return named(run, op.name)
