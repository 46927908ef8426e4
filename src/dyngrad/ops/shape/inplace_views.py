"""In-place view ops: `transpose_`, `t_`, `swapdims_`/`swapaxes_`, `squeeze_`, `unsqueeze_`
and `as_strided_`. The tensor itself takes the view's geometry over the same memory.

# Note [In-place view ops]
# PyTorch records these as in-place ops whose node is the view's formula under its in-place
# name (TransposeBackward1, TBackward1, SqueezeBackward3/4/5, UnsqueezeBackward1,
# AsStridedBackward1); the version counter is bumped, and a tensor that is a view stays a view
# of its base, one step further along its chain. The node is recorded before the array
# changes, as every in-place op is (record reads the input's geometry), then the tensor takes
# the new array.
"""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...graph.grad_mode import state as grad_state
from ..table.record import apply, record
from ..table.registry import defop
from ..table.surface import public
from ..table.views import check_inplace_allowed
from .reshaping import (
    SQUEEZE,
    SQUEEZE_DIM,
    SQUEEZE_DIMS,
    TRANSPOSE,
    UNSQUEEZE,
    T,
    normalize_dims,
    wrap_dim,
)

__all__ = ["inplace_view"]


def _renamed(op, node: str):
    # the same forward and formulas as the out-of-place view, under the in-place node's name
    grads = {name: f[0] for name, f in zip(op.inputs, op.formulas) if f is not None}
    return defop(f"{op.name}_inplace", op.fwd, grads, node=node)


_INPLACE = {
    TRANSPOSE: _renamed(TRANSPOSE, "TransposeBackward1"),
    T: _renamed(T, "TBackward1"),
    SQUEEZE: _renamed(SQUEEZE, "SqueezeBackward3"),
    SQUEEZE_DIM: _renamed(SQUEEZE_DIM, "SqueezeBackward4"),
    SQUEEZE_DIMS: _renamed(SQUEEZE_DIMS, "SqueezeBackward5"),
    UNSQUEEZE: _renamed(UNSQUEEZE, "UnsqueezeBackward1"),
}


def inplace_view(self: Tensor, view_op, inplace_op, attrs: dict, name: str) -> Tensor:
    """`self` takes the geometry `view_op` gives it; `inplace_op` is the row recorded."""
    base = self._base
    if grad_state.enabled and (self._requires_grad or base is not None and base._requires_grad):
        check_inplace_allowed(self)  # only when a gradient is involved, as apply_inplace
    node = None
    if grad_state.enabled and self._requires_grad:
        node = object.__new__(inplace_op.node_class())
        record(node, (self,), 1, attrs, inplace_op.plans[1], None)
    tangent = self.__dict__.get("_fw_grad")
    if tangent is not None:  # forward AD: the tangent takes the same geometry
        self.__dict__["_fw_grad"] = apply(view_op, (tangent,), attrs)
    self._data = view_op.fwd(np, self._data, **attrs)
    if self._base is not None:  # still a view of its base, one step further
        self._view_chain = (self._view_chain, view_op, attrs)
    self._version_counter.bump(name)
    if self._base is not None:
        self._view_ver = self._version_counter.value
    if node is not None:
        self._grad_fn, self._out_nr = node, 0
    return self


def _apply(self, op, attrs: dict, name: str) -> Tensor:
    return inplace_view(self, op, _INPLACE[op], attrs, name)


@public(function=False)
def transpose_(self, dim0, dim1):
    """Matches `torch.Tensor.transpose_`."""
    ndim = self._data.ndim
    d0, d1 = wrap_dim(dim0, ndim), wrap_dim(dim1, ndim)
    return _apply(self, TRANSPOSE, {"dim0": d0, "dim1": d1}, "transpose_")


swapdims_ = public(transpose_, name="swapdims_", function=False)
swapaxes_ = public(transpose_, name="swapaxes_", function=False)


@public(function=False)
def t_(self):
    """Matches `torch.Tensor.t_`."""
    if self._data.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    return _apply(self, T, {}, "t_")


@public(function=False)
def squeeze_(self, dim=None):
    """Matches `torch.Tensor.squeeze_`: every size-1 dim, one dim or a tuple of dims."""
    ndim = self._data.ndim
    if dim is None:
        return _apply(self, SQUEEZE, {}, "squeeze_")
    if isinstance(dim, (tuple, list)):
        return _apply(self, SQUEEZE_DIMS, {"dims": normalize_dims(dim, ndim)}, "squeeze_")
    d = wrap_dim(dim, ndim)
    return _apply(self, SQUEEZE_DIM, {"dim": d if ndim else None}, "squeeze_")


@public(function=False)
def unsqueeze_(self, dim):
    """Matches `torch.Tensor.unsqueeze_`."""
    return _apply(self, UNSQUEEZE, {"dim": wrap_dim(dim, self._data.ndim + 1)}, "unsqueeze_")
