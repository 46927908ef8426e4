"""The sparse forwards of table rows that PyTorch runs on COO tensors: sums and products with
numbers, sums of two sparse tensors, negation, transposes, copies, casts, the full sum and
the sparse-dense product. The rows' own formulas give the gradients, so the nodes are the
dense ops' (`MulBackward0`, `MmBackward0`, ...), as in PyTorch. See Note [Sparse COO arrays].
"""

from __future__ import annotations

import numpy as np

from ...runtime import sparse_coo as coo
from ...runtime.sparse_coo import SparseCOO
from ..creation.conversion import TO_COPY
from ..elementwise.arithmetic import ADD, ADD_SCALED, DIV, MUL, NEG, SUB, SUB_SCALED
from ..linalg.products import MM, MV
from ..reduction.reduce_ops import SUM
from ..shape.reshaping import CLONE, TRANSPOSE, T
from ..table.registry import sparse_forward

__all__ = []


def _same_shape(x: SparseCOO, y) -> None:
    if x.shape != tuple(y.shape):
        raise RuntimeError(
            f"add: expected sizes of 'self' and 'other' to match, but {list(x.shape)} != "
            f"{list(y.shape)}"
        )


def _added(xp, x, y, alpha=1):
    if type(y) is SparseCOO:
        _same_shape(x, y)
    return coo.add(x, y, alpha)


def _scalar_like(x: SparseCOO, y):
    # a 0-d tensor multiplies as a number of x's kind, as PyTorch's type promotion has it
    if type(y) is np.ndarray and y.ndim == 0 and y.dtype.kind == x.dtype.kind:
        return y.astype(x.dtype)
    return y


def _divided(xp, x, y):
    if np.ndim(y) != 0:
        raise RuntimeError(
            "Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
            f"{list(np.shape(y))} for divisor)"
        )
    return x / _scalar_like(x, y)


def _transposed(xp, x, *, dim0=0, dim1=1):
    if x.ndim < 2:
        return x
    sparse_dim = x.sparse_dim
    if dim0 != dim1 and (dim0 >= sparse_dim or dim1 >= sparse_dim):
        raise RuntimeError(
            "sparse transpose: transposed dimensions must be sparse Got sparse_dim: "
            f"{sparse_dim}, d0: {dim0}, d1: {dim1}"
        )
    return coo.transpose(x, dim0, dim1) if dim0 != dim1 else x


def _full_sum(xp, x, *, dtype=None):
    if dtype is None and x.dtype.kind in "biu":
        dtype = np.int64  # as the dense sum: integers and bools sum in int64
    return np.asarray(x.values.sum(dtype=dtype))


sparse_forward(ADD, lambda xp, x, y: _added(xp, x, y))
sparse_forward(ADD_SCALED, lambda xp, x, y, *, alpha: _added(xp, x, y, alpha))
sparse_forward(SUB, lambda xp, x, y: _added(xp, x, y, -1))
sparse_forward(SUB_SCALED, lambda xp, x, y, *, alpha: _added(xp, x, y, -alpha))
sparse_forward(MUL, lambda xp, x, y: coo.multiply(x, _scalar_like(x, y)))
sparse_forward(DIV, _divided)
sparse_forward(NEG, lambda xp, x: -x)
sparse_forward(T, _transposed)
sparse_forward(TRANSPOSE, _transposed)
sparse_forward(CLONE, lambda xp, x, order="K": x.copy())
sparse_forward(TO_COPY, lambda xp, x, *, dtype: x.astype(dtype))
sparse_forward(SUM, _full_sum)
sparse_forward(MM, lambda xp, x, mat2: coo.matmul(x, mat2))
sparse_forward(MV, lambda xp, x, y: coo.matmul(x, y[:, None])[:, 0])
