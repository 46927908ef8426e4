"""COO arrays: the storage of a sparse tensor (PyTorch's `sparse_coo` layout), on NumPy alone.

# Note [Sparse COO arrays]
# A sparse tensor is a Tensor whose `_data` is a `SparseCOO`: `indices` (int64, sparse_dim x
# nnz), `values` (nnz x the dense dims) and the full `shape`. Entries may repeat an index
# (uncoalesced); the tensor's value there is their sum. `coalesce` sorts the indices in
# row-major order and sums the repeats, as PyTorch's `coalesce()`.
# A SparseCOO answers what Tensor reads of any array (shape, dtype, ndim, size, itemsize,
# flags, base) and refuses NumPy: `__array__` raises and `__array_ufunc__` is None, so a
# dense op handed one fails in its forward (and reports PyTorch's error, see
# ops/table/errors.py) instead of computing on an object array. Its operators are the few
# that gradients need (sums of gradients, products with a scalar or a dense matrix); NumPy
# defers `dense + sparse`, `dense * sparse` and `dense @ sparse` to them. Everything runs on
# NumPy: sorting and `np.add.reduceat` coalesce, `np.add.at` scatters.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "SparseCOO",
    "from_dense",
    "coalesce",
    "to_dense",
    "transpose",
    "add",
    "multiply",
    "matmul",
    "values_at",
    "sum_dims",
    "sum_gradients",
]

NOT_AN_ARRAY = "can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first."
ADD_DENSE = "add(sparse, dense) is not supported. Use add(dense, sparse) instead."


class _Flags:
    # what numpy's `flags` says of an array, as far as dyngrad reads it; not writeable, so
    # that in-place ops refuse it off their hot path (ops/table/inplace.py) and AccumulateGrad
    # never adopts a sparse gradient
    __slots__ = ()
    writeable = False
    c_contiguous = False  # PyTorch: a sparse tensor is never contiguous
    f_contiguous = False


class SparseCOO:
    """The indices, values and shape of a COO tensor; see Note [Sparse COO arrays]."""

    __slots__ = ("indices", "values", "shape", "coalesced")
    __array_ufunc__ = None
    base = None  # never a view of another array
    flags = _Flags()

    def __init__(self, indices: np.ndarray, values: np.ndarray, shape, coalesced: bool = False):
        self.indices = indices
        self.values = values
        self.shape = tuple(shape)
        self.coalesced = coalesced or indices.shape[1] == 0

    # ---- what Tensor reads of an array ---------------------------------------------------
    @property
    def dtype(self):
        return self.values.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return self.values.itemsize

    @property
    def nbytes(self) -> int:  # what the arrays hold (the saved-bytes accounting reads it)
        return self.indices.nbytes + self.values.nbytes

    @property
    def strides(self) -> tuple:
        return (0,) * len(self.shape)  # PyTorch reports zeros

    @property
    def sparse_dim(self) -> int:
        return self.indices.shape[0]

    @property
    def dense_dim(self) -> int:
        return self.values.ndim - 1

    @property
    def nnz(self) -> int:
        return self.indices.shape[1]

    def __array__(self, dtype=None, copy=None):
        raise TypeError(NOT_AN_ARRAY)

    def __repr__(self) -> str:
        return f"SparseCOO(shape={self.shape}, nnz={self.nnz}, dtype={self.dtype})"

    def copy(self) -> SparseCOO:
        return SparseCOO(self.indices.copy(), self.values.copy(), self.shape, self.coalesced)

    def astype(self, dtype, copy: bool = True) -> SparseCOO:
        return SparseCOO(self.indices, self.values.astype(dtype), self.shape, self.coalesced)

    def with_values(self, values: np.ndarray) -> SparseCOO:
        """The same pattern holding other values."""
        return SparseCOO(self.indices, values, self.shape, self.coalesced)

    # ---- operators (what gradients and NumPy's deferrals use) ----------------------------
    def __add__(self, other):
        return add(self, other)

    def __radd__(self, other):
        return add(self, other) if type(other) is SparseCOO else _add_into_dense(other, self)

    def __sub__(self, other):
        return add(self, other, -1)

    def __rsub__(self, other):
        return _add_into_dense(other, self, -1)

    def __neg__(self):
        return self.with_values(-self.values)

    def __mul__(self, other):
        return multiply(self, other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self.with_values(self.values / other)

    def __matmul__(self, other):
        return matmul(self, other)

    def __rmatmul__(self, other):
        return matmul(transpose(self, 0, 1), other.T).T


def _sparse_shape(a: SparseCOO) -> tuple:
    return a.shape[: a.sparse_dim]


def _keys(indices: np.ndarray, sparse_shape: tuple) -> np.ndarray:
    # one int64 per entry, in the row-major order of the sparse dims
    if not sparse_shape:
        return np.zeros(indices.shape[1], np.int64)
    return np.ravel_multi_index(tuple(indices), sparse_shape)


def from_dense(x: np.ndarray, sparse_dim: int) -> SparseCOO:
    """The nonzero entries of `x` over its first `sparse_dim` dims (`Tensor.to_sparse`)."""
    nonzero = x != 0
    if sparse_dim < x.ndim:
        nonzero = nonzero.any(axis=tuple(range(sparse_dim, x.ndim)))
    indices = np.array(np.nonzero(nonzero), dtype=np.int64).reshape(sparse_dim, -1)
    return SparseCOO(indices, x[tuple(indices)], x.shape, True)


def coalesce(a: SparseCOO) -> SparseCOO:
    """`a` with sorted, unique indices, the values of repeated ones summed."""
    if a.coalesced:
        return a
    keys = _keys(a.indices, _sparse_shape(a))
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    first = np.ones(len(keys), bool)
    first[1:] = keys[1:] != keys[:-1]
    starts = np.flatnonzero(first)
    values = np.add.reduceat(a.values[order], starts, axis=0)
    return SparseCOO(a.indices[:, order[starts]], values, a.shape, True)


def to_dense(a: SparseCOO) -> np.ndarray:
    out = np.zeros(a.shape, a.dtype)
    if a.coalesced:
        out[tuple(a.indices)] = a.values
    else:
        np.add.at(out, tuple(a.indices), a.values)
    return out


def transpose(a: SparseCOO, dim0: int, dim1: int) -> SparseCOO:
    """`a` with two dims swapped, both sparse or both dense (the caller checks which)."""
    shape = list(a.shape)
    shape[dim0], shape[dim1] = shape[dim1], shape[dim0]
    sd = a.sparse_dim
    if dim0 < sd:
        order = list(range(sd))
        order[dim0], order[dim1] = dim1, dim0
        return SparseCOO(a.indices[order], a.values, shape, a.nnz <= 1)
    values = np.swapaxes(a.values, dim0 - sd + 1, dim1 - sd + 1)
    return SparseCOO(a.indices, values, shape, a.coalesced)


def add(a: SparseCOO, b, alpha=1):
    """`a + alpha * b` for two COO arrays of one shape (the caller checks the shapes)."""
    if type(b) is not SparseCOO:
        raise RuntimeError(ADD_DENSE)
    values = b.values if alpha == 1 else b.values * alpha
    if a.indices.shape == b.indices.shape and np.array_equal(a.indices, b.indices):
        return a.with_values(a.values + values)  # one pattern: PyTorch adds the values
    indices = np.concatenate([a.indices, b.indices], axis=1)
    out = SparseCOO(indices, np.concatenate([a.values, values]), a.shape)
    return coalesce(out) if a.coalesced and b.coalesced else out


def _add_into_dense(dense: np.ndarray, a: SparseCOO, alpha=1) -> np.ndarray:
    # dense + alpha * a: a dense result, as PyTorch's add(dense, sparse)
    out = np.array(np.broadcast_to(dense, a.shape), dtype=np.result_type(dense, a.values))
    np.add.at(out, tuple(a.indices), a.values * alpha if alpha != 1 else a.values)
    return out


def _lookup(x: SparseCOO, indices: np.ndarray):
    # positions of `indices` among x's coalesced entries: (values there or 0, found mask)
    x = coalesce(x)
    keys = _keys(x.indices, _sparse_shape(x))
    wanted = _keys(indices, _sparse_shape(x))
    pos = np.searchsorted(keys, wanted)
    found = pos < len(keys)
    found[found] = keys[pos[found]] == wanted[found]
    out = np.zeros((indices.shape[1],) + x.values.shape[1:], x.dtype)
    out[found] = x.values[pos[found]]
    return out, found


def values_at(x, indices: np.ndarray) -> np.ndarray:
    """The values of `x` (dense or COO) at the given sparse indices (0 where `x` has none)."""
    if type(x) is SparseCOO:
        return _lookup(x, indices)[0]
    return x[tuple(indices)]


def multiply(a: SparseCOO, b) -> SparseCOO:
    """`a * b` for a number, a dense array (masked by a's pattern) or a COO array (PyTorch's
    intersection of the patterns)."""
    if type(b) is SparseCOO:
        a = coalesce(a)
        other, found = _lookup(b, a.indices)
        return SparseCOO(a.indices[:, found], a.values[found] * other[found], a.shape, True)
    if np.ndim(b) == 0:
        return a.with_values(a.values * b)
    dense = np.broadcast_to(b, a.shape)
    return a.with_values(a.values * values_at(dense, a.indices))


def matmul(a: SparseCOO, dense: np.ndarray) -> np.ndarray:
    """A 2-D COO matrix times a dense matrix: each entry scales a row of `dense` into its row."""
    rows, cols = a.indices
    products = a.values[:, None] * dense[cols]
    out = np.zeros((a.shape[0], dense.shape[1]), products.dtype)
    if not len(rows):
        return out
    if a.coalesced:  # rows sorted: one reduceat sums each row's run
        first = np.ones(len(rows), bool)
        first[1:] = rows[1:] != rows[:-1]
        starts = np.flatnonzero(first)
        out[rows[starts]] = np.add.reduceat(products, starts, axis=0)
    else:
        np.add.at(out, rows, products)
    return out


def sum_dims(a: SparseCOO, dims: tuple):
    """`a` summed over `dims` (sorted, non-negative): COO while a sparse dim is left, else dense."""
    sd = a.sparse_dim
    dense_axes = tuple(d - sd + 1 for d in dims if d >= sd)
    values = a.values.sum(axis=dense_axes) if dense_axes else a.values
    keep = [d for d in range(sd) if d not in dims]
    if not keep:
        return values.sum(axis=0)
    shape = tuple(s for d, s in enumerate(a.shape) if d not in dims)
    return coalesce(SparseCOO(a.indices[keep], values, shape))


def sum_gradients(a, b):
    """`a + b` for two gradients of one tensor, either of them COO (the engine's sums)."""
    if type(a) is SparseCOO and type(b) is not SparseCOO:
        return _add_into_dense(b, a)
    return a + b
