"""In-place ops: `apply_inplace` writes an op's result into its first input.

It checks what PyTorch checks (a leaf that requires grad, a shape or dtype the input can't
hold, memory several elements share), bumps the version counter, and rewrites the tensor's
history (`CopySlices` for a view, see Note [In-place through a view]).
"""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...backend import dtypes, namespace
from ...graph import anomaly_mode as anomaly
from ...graph.grad_mode import state as grad_state
from . import registry
from .registry import _EMPTY, OpDef, _as_array, _save, edge

__all__ = ["apply_inplace"]


def apply_inplace(op: OpDef, args: tuple, attrs: dict = _EMPTY, name: str | None = None):
    """Run `op` and write its result into `args[0]`, rewriting that tensor's history."""
    from .views import check_inplace_allowed, rebase_history

    self = args[0]
    grad_on = grad_state.enabled
    if grad_on:
        check_inplace_allowed(self)
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    if op.promote is not None:
        arrays = op.promote(arrays, args)
    try:
        out = op.fwd(namespace(arrays[0]), *arrays, **attrs)
    except (ValueError, IndexError, TypeError, MemoryError) as exc:
        from .errors import translate

        raise translate(op, args, attrs, exc) from None
    stash = None
    if op.stash:  # of the input before the write, which the node saves: See registry.py
        out, stash = out
    out = _as_array(out)
    _check_inplace_result(self, out)
    mask = 0
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and a._rg:
            mask |= 1 << i
    need = grad_on and mask and op.node_cls is not None
    node = None
    if need:
        plan = op.plans[mask]
        inputs = list(args)
        if any(index == 0 for _, index in plan):  # the formula needs self before the write
            inputs[0] = _snapshot(self)
        node = op.node_cls()
        node.next_functions = tuple(edge(a) if mask >> i & 1 else (None, 0)
                                    for i, a in enumerate(args))
        node._attrs = attrs
        node._meta = tuple((a._data.shape, a._data.dtype) if mask >> i & 1 else None
                           for i, a in enumerate(args))
        if op.stash:
            node._stash = stash
        if anomaly.state.enabled:
            anomaly.record(node)
    before = self._vc.value
    try:
        self._data[...] = out
    except ValueError:  # NumPy's read-only array: an expanded view (stride 0)
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the "
            "operation.") from None
    self._vc.bump(name or op.name + "_")
    if need:
        rebase_history(self, node)
        _save(node, plan, tuple(inputs), self)
        for key, value in node._saved.items():  # `y.mul_(y)`: y was saved before the write
            if type(value) is Tensor and value._vc is self._vc:
                node._versions[key] = before
    if registry.observer is not None:  # See Note [Op registry.observer]
        registry.observer(op, args, attrs, self)
    return self


def _snapshot(t: Tensor) -> Tensor:
    copy = Tensor._wrap(t._data.copy(), t._rg, t._fn, t._out_nr)
    return copy


def _check_inplace_result(self: Tensor, out) -> None:
    if out.shape != self._data.shape:
        if np.broadcast_shapes(out.shape, self._data.shape) != self._data.shape:
            raise RuntimeError(
                f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                f"{list(out.shape)}")
    src, dst = dtypes.from_numpy_dtype(out.dtype), dtypes.from_numpy_dtype(self._data.dtype)
    if not dtypes.can_cast(src, dst):
        raise RuntimeError(f"result type {src._legacy} can't be cast to the desired output "
                           f"type {dst._legacy}")
