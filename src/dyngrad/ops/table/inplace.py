"""In-place ops: `apply_inplace` writes an op's result into its first input.

It checks what PyTorch checks (a leaf that requires grad, a shape or dtype the input can't
hold, memory several elements share), bumps the version counter, and rewrites the tensor's
history (`CopySlices` for a view, see Note [In-place through a view] in record.py).
"""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...graph.grad_mode import state as grad_state
from ...runtime import dtypes, namespace
from . import record
from .errors import translate
from .record import connect, save
from .views import check_inplace_allowed, rebase_history

__all__ = ["apply_inplace"]

_EMPTY: dict = {}
_new = object.__new__
OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


def apply_inplace(op, args: tuple, attrs: dict = _EMPTY, name: str | None = None):
    """Run `op` and write its result into `args[0]`, rewriting that tensor's history."""
    self = args[0]
    grad_on = grad_state.enabled
    if grad_on:
        check_inplace_allowed(self)
    if not self._data.flags.writeable:  # an expanded view (stride 0): refuse before computing
        raise RuntimeError(OVERLAP)
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    if op.promote is not None:
        arrays = op.promote(arrays, args)
    try:
        out = op.fwd(namespace(arrays[0]), *arrays, **attrs)
    except (ValueError, IndexError, TypeError, MemoryError) as exc:
        raise translate(op, args, attrs, exc) from None
    stash = None
    if op.stash:  # of the input before the write: See Note [Stashed intermediates]
        out, stash = out
    out = out if type(out) is np.ndarray else np.asarray(out)
    _check_inplace_result(self, out)
    mask = 0
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and a._requires_grad:
            mask |= 1 << i
    node = None
    if grad_on and mask and op.node_cls is not None:
        plan = op.plans[mask]
        inputs = list(args)
        if any(index == 0 for _, index in plan):  # the formula needs self before the write
            inputs[0] = _snapshot(self)
        node = connect(_new(op.node_cls), args, mask, attrs)
        if op.stash:
            node._stash = stash
    before = self._version_counter.value
    try:
        self._data[...] = out
    except ValueError:  # NumPy's read-only array
        raise RuntimeError(OVERLAP) from None
    self._version_counter.bump(name or op.name + "_")
    if node is not None:
        rebase_history(self, node)
        save(node, plan, tuple(inputs), self)
        for key, value in node._saved.items():  # `y.mul_(y)`: y was saved before the write
            if type(value) is Tensor and value._version_counter is self._version_counter:
                node._versions[key] = before
    if record.observer is not None:  # See Note [Op observer]
        record.observer(op, args, attrs, self)
    return self


def _snapshot(t: Tensor) -> Tensor:
    copy = Tensor._wrap(t._data.copy(), t._requires_grad, t._grad_fn, t._out_nr)
    return copy


def _check_inplace_result(self: Tensor, out) -> None:
    if out.shape != self._data.shape:
        if np.broadcast_shapes(out.shape, self._data.shape) != self._data.shape:
            raise RuntimeError(
                f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                f"{list(out.shape)}"
            )
    src, dst = dtypes.from_numpy_dtype(out.dtype), dtypes.from_numpy_dtype(self._data.dtype)
    if not dtypes.can_cast(src, dst):
        raise RuntimeError(
            f"result type {src._legacy} can't be cast to the desired output type {dst._legacy}"
        )
