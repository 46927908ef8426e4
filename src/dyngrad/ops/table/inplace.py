"""In-place ops: `apply_inplace` writes an op's result into its first input.

It checks what PyTorch checks (a leaf that requires grad, a shape or dtype the input can't
hold, memory several elements share), bumps the version counter, and rewrites the tensor's
history (`CopySlices` for a view, see Note [In-place through a view] in record.py).
"""

from __future__ import annotations

import weakref

import numpy as np

from ..._tensor import Tensor
from ...graph import saved_hooks
from ...graph.grad_mode import state as grad_state
from ...graph.saved import SavedOutput
from ...runtime import dtypes, namespace
from ...runtime.sparse_coo import SparseCOO
from . import record as recording
from .errors import not_on_sparse, translate
from .record import gradient_edge, record, save
from .views import check_inplace_allowed, rebase_history

__all__ = ["apply_inplace"]

_EMPTY: dict = {}
_new = object.__new__
_hooks_active = saved_hooks.active
_write_watchers = saved_hooks.write_watchers
OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


def apply_inplace(op, args: tuple, attrs: dict = _EMPTY, name: str | None = None):
    """Run `op` and write its result into `args[0]`, rewriting that tensor's history."""
    if recording.op_started is not None:  # the profiler: See Note [Op start hook]
        recording.op_started(op.name)
    self = args[0]
    grad_on = grad_state.enabled
    mask = 0
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and a._requires_grad:
            mask |= 1 << i
    mask &= op.edge_mask  # See Note [Edges are differentiable inputs]
    # a view requires grad when its base does, even one made before the base did
    if grad_on and (mask or self._base is not None and self._base._requires_grad):
        check_inplace_allowed(self)
    if not self._data.flags.writeable:  # a view of an expanded tensor: See _writeable
        if type(self._data) is SparseCOO:  # (never writeable): in-place ops are not built
            raise not_on_sparse(op)
        self._data = _writeable(self._data)
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
    node = None
    if grad_on and mask and op.records:
        node = _new(op.node_cls or op.node_class())
        if op.stash:
            node._stash = stash
        plan = op.plans[mask]
        inputs = args
        if any(index == 0 for _, index in plan):  # the formula reads self before the write
            inputs = (_snapshot(self),) + args[1:]
    if recording.inplace_observer is not None:  # forward AD, before the old value is gone
        recording.inplace_observer(op, args, attrs, out)
    if _write_watchers:  # See Note [Writes into saved tensors]
        for watcher in _write_watchers:
            watcher(self)
    try:
        self._data[...] = out
    except ValueError:  # NumPy's read-only array
        raise RuntimeError(OVERLAP) from None
    # under saved-tensor hooks what the node saves is packed once the write is counted and
    # self's history rewritten, as PyTorch's pack hook sees it (See Note [Saved tensor hooks])
    hooked = node is not None and _hooks_active and saved_hooks.current() is not None
    if node is not None:
        # Recorded between the write and the bump, so an input saved that shares self's
        # counter (`y.mul_(y)`) keeps its version from before the write: backward then sees
        # that it changed, as PyTorch does.
        record(node, inputs, mask, attrs, None if hooked else plan, self)
    self._version_counter.bump(name or op.name + "_")
    if node is not None:
        if not hooked:
            for key, value in node._saved.items():
                if type(value) is SavedOutput:  # self as the write left it
                    node._versions[key] = self._version_counter.value
        rebase_history(self, node)
        if hooked:
            save(node, plan, inputs, self)
        elif self._base is not None and any(type(v) is SavedOutput for v in node._saved.values()):
            # Note [Saved output of an in-place op on a view]: under create_graph the output
            # unpacks with the view's history as it is now (through the base's CopySlices,
            # which runs `node`), not with `node` alone; weakly, as PyTorch's SavedVariable
            # (the view's node owns, through the CopySlices, this very node)
            node._view_grad_fn = weakref.ref(self._grad_fn)
    if recording.observer is not None:  # See Note [Op observer]
        recording.observer(op, args, attrs, self)
    return self


class _Interface:
    # what np.asarray reads to make an array over given memory (as NumPy's as_strided does)
    def __init__(self, interface: dict, base) -> None:
        self.__array_interface__ = interface
        self.base = base


def _writeable(array):
    """A writable alias of a read-only view of an expanded tensor, when no two of its own
    elements share memory (`g.expand(n)[0] = 0` is fine, as in PyTorch); else PyTorch's
    internal-overlap error, raised before anything is computed. Memory read-only at its
    source (shared constants, foreign buffers) stays so."""
    if type(array) is not np.ndarray or any(
        st == 0 and n > 1 for st, n in zip(array.strides, array.shape)
    ):
        raise RuntimeError(OVERLAP)
    owner = array.base
    while isinstance(owner, np.ndarray) and not owner.flags.writeable:
        owner = owner.base
    if not isinstance(owner, np.ndarray):
        raise RuntimeError(OVERLAP)
    interface = dict(array.__array_interface__)
    interface["data"] = (interface["data"][0], False)
    return np.asarray(_Interface(interface, owner))


def _snapshot(t: Tensor) -> Tensor:
    """A copy of `t` as it is before the write, with `t`'s gradient edge (so the node recorded
    on it connects to `t`'s history, through its base if `t` is a view)."""
    if not t._requires_grad:
        return Tensor._wrap(t._data.copy())
    fn, output_nr = gradient_edge(t)
    return Tensor._wrap(t._data.copy(), True, fn, output_nr)


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
