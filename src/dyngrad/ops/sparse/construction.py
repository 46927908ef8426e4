"""Sparse COO tensors made and taken apart: `sparse_coo_tensor`, `to_sparse`, `to_dense`,
`coalesce`, `values`/`indices`, `sparse_mask`, with PyTorch's nodes and gradients.

Gradients of a sparse tensor are sparse with its (coalesced) pattern, as PyTorch's: the
gradient of `to_dense()` is the dense gradient masked by the input's pattern. See
Note [Sparse COO arrays] for the storage.
"""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...runtime import sparse_coo as coo
from ...runtime.layouts import sparse_coo
from ...runtime.sparse_coo import SparseCOO
from ..creation.factories import tensor
from ..table.record import apply
from ..table.registry import defop, sparse_forward
from ..table.surface import public

__all__ = ["sparse_coo_tensor", "is_sparse", "to_dense", "sparse_mask", "masked_by", "SPARSE_COO"]


def is_sparse(t) -> bool:
    return type(t._data) is SparseCOO


def _scatter(g, indices, shape, sparse: bool):
    # values (one per index) back into a tensor of `shape`: the adjoint of `_values_at`
    out = apply(SPARSE_COO, (g,), {"indices": indices, "shape": shape})
    return out if sparse else to_dense(out)


SPARSE_COO = sparse_forward(
    defop(
        "sparse_coo_tensor",
        lambda xp, values, *, indices, shape: SparseCOO(indices, values, shape),
        {"values": lambda g, indices: _values_at(g, indices)},
        node="SparseCooTensorWithDimsAndTensorsBackward0",
    )
)
# the values of a tensor (dense or sparse) at given indices, repeated ones each getting the
# whole value there: the gradient of a COO tensor's values (dyngrad's own node)
VALUES_AT = sparse_forward(
    defop(
        "sparse_values_at",
        lambda xp, x, *, indices, sparse: coo.values_at(x, indices),
        {"x": lambda g, x_shape, indices, sparse: _scatter(g, indices, tuple(x_shape), sparse)},
    )
)


def _values_at(g, indices):
    return apply(VALUES_AT, (g,), {"indices": indices, "sparse": is_sparse(g)})


# dense (or sparse) values at a sparse tensor's entries: Tensor.sparse_mask, and the gradient
# of to_dense(). Its own gradient adds up, at each position, what reached each entry there
# (a mask with a repeated index takes the value there twice).
SPARSE_MASK = sparse_forward(
    defop(
        "sparse_mask",
        lambda xp, x, *, mask: mask.with_values(coo.values_at(x, mask.indices)),
        {"x": lambda g, mask: to_dense(apply(SPARSE_MASK, (g,), {"mask": mask}))},
    )
)
TO_DENSE = sparse_forward(
    defop(
        "to_dense",
        lambda xp, x, *, masked_grad: coo.to_dense(x),
        {"x": lambda g, x, masked_grad: masked_by(g, x) if masked_grad else g},
    )
)
TO_SPARSE = defop(
    "to_sparse",
    lambda xp, x: coo.from_dense(x, x.ndim),
    {"x": lambda g: to_dense(g)},
    node="ToSparseBackward1",
)
TO_SPARSE_DIM = defop(
    "to_sparse_dim",
    lambda xp, x, *, sparse_dim: coo.from_dense(x, sparse_dim),
    {"x": lambda g: to_dense(g)},
    node="ToSparseBackward0",
)
COALESCE = sparse_forward(
    defop("coalesce", lambda xp, x: coo.coalesce(x), {"x": lambda g: g}),
)
VALUES = sparse_forward(
    defop(
        "values",
        lambda xp, x: x.values,
        {"x": lambda g, x: _scatter(g, x._data.indices, x._data.shape, True)},
    )
)


# ---- construction -------------------------------------------------------------------------
def _as_tensor(data, dtype=None) -> Tensor:
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype is dtype else data.to(dtype)
    return tensor(data, dtype=dtype)


def _check_indices(indices: np.ndarray, values: np.ndarray, size) -> tuple:
    # PyTorch's checks, in its order; the bounds check is PyTorch's check_invariants=True one,
    # which dyngrad always makes (an index out of range would fail later, far from its cause)
    if indices.ndim != 2:
        raise RuntimeError(
            f"indices must be sparse_dim x nnz, but got: {list(indices.shape)}"
            if indices.ndim > 2
            else f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = "
            f"{len(size) if size is not None else '?'}, sparse_dim = {indices.shape[0]}, "
            f"dense_dim = {values.ndim - 1}"
        )
    sparse_dim, nnz = indices.shape
    if values.ndim == 0 or values.shape[0] != nnz:
        got = values.shape[0] if values.ndim else 1
        raise RuntimeError(
            f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz "
            f"from values: {got}"
        )
    if size is None:
        top = indices.max(axis=1) + 1 if nnz else np.zeros(sparse_dim, np.int64)
        return tuple(int(s) for s in top) + values.shape[1:]
    size = tuple(int(s) for s in size)
    if len(size) != sparse_dim + values.ndim - 1:
        raise RuntimeError(
            f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
            f"sparse_dim = {sparse_dim}, dense_dim = {values.ndim - 1}"
        )
    if values.shape[1:] != size[sparse_dim:]:
        expected = [nnz, *size[sparse_dim:]]
        raise RuntimeError(
            f"values has incorrect size, expected {expected}, got {list(values.shape)}"
        )
    if nnz:
        low, high = indices.min(axis=1), indices.max(axis=1)
        for d in range(sparse_dim):
            if low[d] < 0:
                raise RuntimeError(f"found negative index {low[d]} for dim {d}")
            if high[d] >= size[d]:
                raise RuntimeError(
                    f"size is inconsistent with indices: for dim {d}, size is {size[d]} but "
                    f"found index {high[d]}"
                )
    return size


@public(method=False)
def sparse_coo_tensor(
    indices,
    values,
    size=None,
    *,
    dtype=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
    is_coalesced=None,
) -> Tensor:
    """Matches `torch.sparse_coo_tensor`: a COO tensor (differentiable in `values`).

    dyngrad always checks that the indices fit `size` (PyTorch only with check_invariants).
    """
    index = _as_tensor(indices)._data.astype(np.int64, copy=False)
    values = _as_tensor(values, dtype)
    shape = _check_indices(index, values._data, size)
    out = apply(SPARSE_COO, (values,), {"indices": index, "shape": shape})
    if is_coalesced:
        out._data.coalesced = True
    if requires_grad:
        out.requires_grad_(True)
    return out


# ---- conversions --------------------------------------------------------------------------
@public(function=False)
def to_dense(self, dtype=None, *, masked_grad: bool = True) -> Tensor:
    """Matches `torch.Tensor.to_dense`; a dense tensor returns itself."""
    out = self
    if is_sparse(self):
        out = apply(TO_DENSE, (self,), {"masked_grad": masked_grad})
    return out if dtype is None else out.to(dtype)


@public(function=False)
def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None) -> Tensor:
    """Matches `torch.Tensor.to_sparse` for the COO layout (the default)."""
    if layout is not None and layout is not sparse_coo:
        raise NotImplementedError(f"dyngrad has no {layout} layout: only torch.sparse_coo")
    if is_sparse(self):
        return self
    if sparse_dim is None:
        return apply(TO_SPARSE, (self,))
    if not 0 <= sparse_dim <= self._data.ndim:
        raise RuntimeError(
            f"sparse_dim argument must be in [0,{self._data.ndim}] range, but {sparse_dim} is given"
        )
    return apply(TO_SPARSE_DIM, (self,), {"sparse_dim": sparse_dim})


@public(function=False)
def to_sparse_coo(self) -> Tensor:
    """Matches `torch.Tensor.to_sparse_coo`."""
    return to_sparse(self)


@public(function=False)
def sparse_mask(self, mask) -> Tensor:
    """Matches `torch.Tensor.sparse_mask`: `self`'s values at `mask`'s indices."""
    if not is_sparse(mask):
        raise RuntimeError("sparse_mask expects mask to be sparse COO")
    if tuple(self._data.shape) != mask._data.shape:
        raise RuntimeError("sparse_mask(): operands have incompatible sizes")
    return apply(SPARSE_MASK, (self,), {"mask": mask._data})


def masked_by(g, like) -> Tensor:
    """The gradient `g` (dense) of a sparse tensor `like`, kept at like's coalesced pattern:
    how PyTorch hands a sparse input its gradient."""
    return apply(SPARSE_MASK, (g,), {"mask": coo.coalesce(like._data)})


# ---- the parts of a COO tensor -------------------------------------------------------------
def _sparse_only(self, name: str) -> SparseCOO:
    if not is_sparse(self):
        raise RuntimeError(f"{name} expected sparse coordinate tensor layout but got Strided")
    return self._data


@public(function=False)
def coalesce(self) -> Tensor:
    """Matches `torch.Tensor.coalesce`: itself when already coalesced."""
    a = _sparse_only(self, "coalesce")
    return self if a.coalesced else apply(COALESCE, (self,))


@public(function=False)
def is_coalesced(self) -> bool:
    return _sparse_only(self, "is_coalesced").coalesced


def _coalesced_only(self, what: str) -> SparseCOO:
    a = _sparse_only(self, what)
    if not a.coalesced:
        raise RuntimeError(
            f"Cannot get {what} on an uncoalesced tensor, please call .coalesce() first"
        )
    return a


@public(function=False)
def indices(self) -> Tensor:
    """Matches `torch.Tensor.indices` (coalesced tensors only)."""
    return Tensor._wrap(_coalesced_only(self, "indices").indices)


@public(function=False)
def values(self) -> Tensor:
    """Matches `torch.Tensor.values` (coalesced tensors only): differentiable."""
    _coalesced_only(self, "values")
    return apply(VALUES, (self,))


@public(function=False, name="_indices")
def raw_indices(self) -> Tensor:
    """Matches `torch.Tensor._indices`: the indices as stored, coalesced or not."""
    return Tensor._wrap(_sparse_only(self, "_indices").indices)


@public(function=False, name="_values")
def raw_values(self) -> Tensor:
    """Matches `torch.Tensor._values`: the values as stored, without history."""
    return Tensor._wrap(_sparse_only(self, "_values").values)


@public(function=False, name="_nnz")
def nnz(self) -> int:
    return _sparse_only(self, "_nnz").nnz


@public(function=False)
def sparse_dim(self) -> int:
    """Matches `torch.Tensor.sparse_dim` (0 for a dense tensor)."""
    return self._data.sparse_dim if is_sparse(self) else 0


@public(function=False)
def dense_dim(self) -> int:
    """Matches `torch.Tensor.dense_dim` (all dims for a dense tensor)."""
    return self._data.dense_dim if is_sparse(self) else self._data.ndim
