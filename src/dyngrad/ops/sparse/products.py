"""Products and sums of sparse COO tensors: `torch.sparse.mm` (whose gradient to the sparse
side keeps its pattern), `torch.spmm`, `torch.sparse.sum`."""

from __future__ import annotations

import numpy as np

from ...runtime import sparse_coo as coo
from ...runtime.sparse_coo import SparseCOO
from ..linalg.products import _mm, check_sparse_mm, mm
from ..shape.reshaping import normalize_dims
from ..table import record as recording
from ..table.record import apply
from ..table.registry import defop, sparse_forward
from ..table.surface import public
from .construction import coalesce, is_sparse, masked_by, values

__all__ = ["sparse_mm", "sparse_sum", "spmm"]

# torch.sparse.mm(S, D) is addmm(0, S, D) on a sparse S: its node has three edges, the first
# (the zero it adds: a formula that gives no gradient, so it has an edge) never connected;
# S's gradient is masked by S's pattern
SPARSE_ADDMM = defop(
    "sparse_addmm",
    lambda xp, x, mat1, mat2: coo.matmul(mat1, mat2),
    {
        "x": lambda g: None,
        "mat1": lambda g, mat1, mat2: masked_by(_mm(g, mat2.t()), mat1),
        "mat2": lambda g, mat1: _mm(mat1.t(), g),
    },
)


def _sum_backward(xp, grad, *, like: SparseCOO, dim: tuple):
    # the gradient of sparse_sum(x, dim): the reduced gradient at each entry of x's pattern
    kept = [d for d in range(like.sparse_dim) if d not in dim]
    if kept:
        reduced = coo.values_at(grad, like.indices[kept])
    else:
        reduced = np.broadcast_to(grad, (like.nnz,) + grad.shape)
    for d in dim:  # the summed dense dims come back as size-1 dims, then broadcast
        if d >= like.sparse_dim:
            reduced = np.expand_dims(reduced, d - like.sparse_dim + 1)
    return like.with_values(np.broadcast_to(reduced, like.values.shape).copy())


SPARSE_SUM = sparse_forward(
    defop(
        "sparse_sum",
        lambda xp, x, *, dim: coo.sum_dims(x, dim),
        {"x": lambda g, x, dim: _sum_backward_of(g, x, dim)},
    )
)
SPARSE_SUM_BACKWARD = sparse_forward(
    defop(
        "sparse_sum_backward",
        _sum_backward,
        {"grad": lambda g, dim: apply(SPARSE_SUM, (g,), {"dim": dim})},
    )
)


def _sum_backward_of(g, x, dim):
    like = coo.coalesce(x._data)
    return apply(SPARSE_SUM_BACKWARD, (g,), {"like": like, "dim": dim})


def sparse_mm(mat1, mat2):
    """Matches `torch.sparse.mm`: sparse @ dense with a sparse gradient for the sparse side
    (dense @ dense and dense @ sparse are torch.mm)."""
    if not is_sparse(mat1):
        return mm(mat1, mat2)
    if recording.autocast is not None:  # PyTorch casts it as addmm: See Note [Autocast hook]
        mat1, mat2 = recording.autocast("addmm", (mat1, mat2))
    check_sparse_mm(mat1, mat2)
    return apply(SPARSE_ADDMM, (0, mat1, mat2))


def sparse_sum(input, dim=None, dtype=None):
    """Matches `torch.sparse.sum`: over all dims a dense scalar (the values' sum), else a sparse
    tensor (dense once every sparse dim is summed)."""
    if dtype is not None:
        input = input.to(dtype)
    if dim is None:
        return values(coalesce(input)).sum()
    dims = normalize_dims(dim, input._data.ndim)
    return apply(SPARSE_SUM, (input,), {"dim": dims})


@public(method=False)
def spmm(input, mat2):
    """Matches `torch.spmm`: torch.mm for a sparse (or dense) first argument."""
    return mm(input, mat2)
