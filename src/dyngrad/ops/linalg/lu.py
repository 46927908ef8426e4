"""The LU factorization with partial pivoting: `linalg.lu_factor(_ex)` and `linalg.lu`."""

from __future__ import annotations

import numpy as np

from ...return_types import linalg_lu, linalg_lu_factor, linalg_lu_factor_ex
from ..creation.ranges import eye
from ..shape.joining import cat
from ..table.errors import expect_tensor
from ..table.record import apply
from ..table.registry import defop
from .cholesky import _solve

# ---- forwards on arrays ---------------------------------------------------------------------


def _getrf(a):
    """LAPACK's getrf over a batch: (packed LU, 1-based pivots, info), column by column.

    A zero pivot is recorded in info (its 1-based order) and the factorization goes on, as
    LAPACK's does; the rows are swapped as LAPACK's `ipiv` says.
    """
    m, n = a.shape[-2:]
    k = min(m, n)
    flat = np.array(a).reshape(_count(a.shape[:-2]), m, n)
    pivots = np.empty((flat.shape[0], k), np.int32)
    info = np.zeros(flat.shape[0], np.int32)
    batch = np.arange(flat.shape[0])
    for j in range(k):
        p = j + np.argmax(np.abs(flat[:, j:, j]), axis=1)
        pivots[:, j] = p + 1
        row = flat[batch, j].copy()
        flat[batch, j] = flat[batch, p]
        flat[batch, p] = row
        pivot = flat[:, j, j]
        zero = pivot == 0  # then the whole column below is zero too
        info[(info == 0) & zero] = j + 1
        flat[:, j + 1 :, j] /= np.where(zero, 1, pivot)[:, None]
        flat[:, j + 1 :, j + 1 :] -= flat[:, j + 1 :, j, None] * flat[:, j, None, j + 1 :]
    batch_shape = a.shape[:-2]
    return flat.reshape(a.shape), pivots.reshape(batch_shape + (k,)), info.reshape(batch_shape)


def _count(batch_shape) -> int:
    return int(np.prod(batch_shape, dtype=np.int64))


def permutation(pivots, m: int, dtype):
    """P with A = P L U, from LAPACK's sequence of row swaps."""
    flat = pivots.reshape(_count(pivots.shape[:-1]), pivots.shape[-1])
    order = np.tile(np.arange(m), (flat.shape[0], 1))
    batch = np.arange(flat.shape[0])
    for j in range(flat.shape[1]):
        p = flat[:, j] - 1
        row = order[batch, j].copy()
        order[batch, j] = order[batch, p]
        order[batch, p] = row
    # row i of L U is row order[i] of A
    P = np.zeros((flat.shape[0], m, m), dtype)  # noqa: N806
    P[batch[:, None], order, np.arange(m)] = 1
    return P.reshape(pivots.shape[:-1] + (m, m))


def _unpack(lu):
    m, n = lu.shape[-2:]
    k = min(m, n)
    low = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    return low, np.triu(lu[..., :k, :])


def _lu_fwd(xp, a):
    lu, pivots, _ = _getrf(a)
    low, up = _unpack(lu)
    return permutation(pivots, a.shape[-2], a.dtype), low, up


# ---- backward formulas ----------------------------------------------------------------------


def lu_backward(grad_low, grad_up, P, low, up):  # noqa: N803
    """dA for A = P L U, L unit lower (m x k), U upper (k x n): PyTorch's formula.

    Square: gA = P L^-H [tril(L^H gL, -1) + triu(gU U^H)] U^-H. A wide (tall) A adds the
    columns (rows) of U (L) beyond k, whose gradients pass through L^-H (U^-H) alone.
    """
    m, n = low.shape[-2], up.shape[-1]
    k = min(m, n)
    if grad_low is None:
        grad_low = low.new_zeros(low.shape)
    if grad_up is None:
        grad_up = up.new_zeros(up.shape)
    if m == n:
        grad = (low.mT @ grad_low).tril(-1) + (grad_up @ up.mT).triu()
        grad = _solve(up.mT, grad, upper=False, left=False)
        return P @ _solve(low.mT, grad, upper=True, unitriangular=True)
    if m < n:
        grad = low.mT @ grad_low - grad_up.triu() @ up.mT
        grad = _solve(up[..., :k].mT, grad.tril(-1), upper=False, left=False)
        grad = cat([grad + grad_up[..., :k].triu(), grad_up[..., k:]], -1)
        return P @ _solve(low.mT, grad, upper=True, unitriangular=True)
    grad = grad_up @ up.mT - low.mT @ grad_low.tril(-1)
    grad = _solve(low[..., :k, :].mT, grad.triu(), upper=True, unitriangular=True)
    grad = cat([grad + grad_low[..., :k, :].tril(-1), grad_low[..., k:, :]], -2)
    return P @ _solve(up.mT, grad, upper=False, left=False)


def _lu_factor_grad(g, out):
    lu, pivots = out[0], out[1]
    m, n = lu.shape[-2], lu.shape[-1]
    k = min(m, n)
    low = lu[..., :, :k].tril(-1) + eye(m, k, dtype=lu.dtype)
    P = lu.new_tensor(permutation(pivots._data, m, lu._data.dtype))  # noqa: N806
    return lu_backward(g[0][..., :, :k], g[0][..., :k, :], P, low, lu[..., :k, :].triu())


def _lu_grad(g, out):
    return lu_backward(g[1], g[2], out[0], out[1], out[2])


# ---- the table ------------------------------------------------------------------------------

LU_FACTOR_EX = defop(
    "linalg_lu_factor_ex",
    lambda xp, a: _getrf(a),
    {"a": _lu_factor_grad},
    outputs=3,
    differentiable=(0,),
    node="LinalgLuFactorExBackward0",
)
LU = defop(
    "linalg_lu",
    _lu_fwd,
    {"a": _lu_grad},
    outputs=3,
    differentiable=(1, 2),
    node="LinalgLuBackward0",
)

# ---- the public surface ----------------------------------------------------------------------


def _check(A, name: str, pivot: bool) -> None:  # noqa: N803
    shape = A._data.shape
    if len(shape) < 2:
        raise RuntimeError(
            f"{name}: Expected tensor with 2 or more dimensions. Got size: {list(shape)} instead"
        )
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    kind = A.dtype._legacy
    if kind not in ("Float", "Double", "ComplexFloat", "ComplexDouble"):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{kind}'")


def _raise_zero_pivot(name: str, info, ndim: int) -> None:
    for index in np.ndindex(info.shape):
        if info[index]:
            batch = f"(Batch element {int(np.ravel_multi_index(index, info.shape))}): "
            k = info[index]
            raise RuntimeError(
                f"torch.{name}: {batch if ndim > 2 else ''}U[{k},{k}] is zero and using it on "
                f"lu_solve would result in a division by zero. If you still want to perform the "
                f"factorization, consider calling linalg.lu(A, pivot) or "
                f"linalg.lu_factor_ex(A, pivot)"
            )


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):  # noqa: N803
    """Matches `torch.linalg.lu_factor_ex`: `(LU, pivots, info)`, L and U packed in LU."""
    expect_tensor("linalg_lu_factor_ex", "A", 1, A)
    _check(A, "torch.lu_factor", pivot)
    lu, pivots, info = apply(LU_FACTOR_EX, (A,))
    if check_errors:
        _raise_zero_pivot("linalg.lu_factor_ex", info._data, A._data.ndim)
    return linalg_lu_factor_ex(lu, pivots, info)


def lu_factor(A, *, pivot=True, out=None):  # noqa: N803
    """Matches `torch.linalg.lu_factor`: `(LU, pivots)`; raises where U has a zero pivot."""
    expect_tensor("linalg_lu_factor", "A", 1, A)
    _check(A, "torch.lu_factor", pivot)
    lu, pivots, info = apply(LU_FACTOR_EX, (A,))
    _raise_zero_pivot("linalg.lu_factor", info._data, A._data.ndim)
    return linalg_lu_factor(lu, pivots)


def lu(A, *, pivot=True, out=None):  # noqa: N803
    """Matches `torch.linalg.lu`: `(P, L, U)` with A = P L U."""
    expect_tensor("linalg_lu", "A", 1, A)
    _check(A, "linalg.lu", pivot)
    return linalg_lu(*apply(LU, (A,)))
