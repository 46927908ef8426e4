"""The LU factorization with partial pivoting: `linalg.lu_factor(_ex)`, `linalg.lu`, the
solves with its factors, `linalg.lu_solve`, and the older `torch.lu`, `lu_unpack`, `lu_solve`."""

from __future__ import annotations

import numpy as np

from ...return_types import _result_type, linalg_lu, linalg_lu_factor, linalg_lu_factor_ex
from ..creation.ranges import eye
from ..shape.joining import cat
from ..table.errors import broadcast_error, expect_tensor
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .cholesky import _solve, _warn_once, solve_triangular_array
from .lapack_checks import check_square, first_failure
from .solvers import column_major

lu_unpack_result = _result_type("lu_unpack", ("P", "L", "U"))
lu_with_info = _result_type("_lu_with_info", ("LU", "pivots", "info"))

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


def _lu_unpack_fwd(xp, lu, pivots, *, unpack_data, unpack_pivots):
    empty = xp.zeros(0, lu.dtype)
    low, up = _unpack(lu) if unpack_data else (empty, empty)
    P = permutation(pivots, lu.shape[-2], lu.dtype) if unpack_pivots else empty  # noqa: N806
    return P, low, up


def _lu_solve_fwd(xp, lu, pivots, b, *, left, adjoint):
    """X with op(A) X = B (X op(A) = B when not left), A = P L U, op(A) = A or A^H."""
    if not left:  # X op(A) = B  <=>  op(A)^H X^H = B^H
        x = _lu_solve_fwd(xp, lu, pivots, b.swapaxes(-1, -2).conj(), left=True, adjoint=not adjoint)
        return xp.ascontiguousarray(x.swapaxes(-1, -2).conj())
    P = permutation(pivots, lu.shape[-1], lu.dtype)  # noqa: N806
    if adjoint:  # A^H = U^H L^H P^T
        y = solve_triangular_array(xp, lu.swapaxes(-1, -2).conj(), b, upper=False)
        y = solve_triangular_array(xp, lu.swapaxes(-1, -2).conj(), y, True, unitriangular=True)
        return column_major(P @ y)
    y = solve_triangular_array(xp, lu, P.swapaxes(-1, -2) @ b, False, unitriangular=True)
    return column_major(solve_triangular_array(xp, lu, y, upper=True))


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


def _lu_unpack_grad(g, lu_shape):
    # L's strict lower triangle and U's upper one are where they sit in LU. Unpacked without
    # the data, L and U are empty and this raises as PyTorch's does (triu of a 1-d tensor)
    m, n = lu_shape[-2], lu_shape[-1]
    k = min(m, n)
    grad = None
    if g[2] is not None:
        grad = g[2].triu()
        if m > k:
            grad = cat([grad, grad.new_zeros((*grad.shape[:-2], m - k, n))], -2)
    if g[1] is not None:
        low = g[1].tril(-1)
        if n > k:
            low = cat([low, low.new_zeros((*low.shape[:-1], n - k))], -1)
        grad = low if grad is None else grad + low
    return grad


def _lu_solve_grad_b(g, lu, pivots, left, adjoint):
    # X = op(A)^-1 B: gB = op(A)^-H gX (X = B op(A)^-1: gB = gX op(A)^-H)
    return apply(LU_SOLVE, (lu, pivots, g), {"left": left, "adjoint": not adjoint})


def _lu_solve_grad_lu(g, lu, pivots, out, left, adjoint):
    # gA as for solve (A X = B: gA = -gB X^H, and so on per case), then through A = P L U:
    # gL = tril(P^T gA U^H, -1), gU = triu(L^H P^T gA), packed as LU packs them
    grad_b, x = _lu_solve_grad_b(g, lu, pivots, left, adjoint), out
    if left:
        grad = -(x @ grad_b.mT) if adjoint else -(grad_b @ x.mT)
    else:
        grad = -(grad_b.mT @ x) if adjoint else -(x.mT @ grad_b)
    n = lu.shape[-1]
    P = lu.new_tensor(permutation(pivots._data, n, lu._data.dtype))  # noqa: N806
    grad = P.mT @ grad
    low = lu.tril(-1) + eye(n, dtype=lu.dtype)
    return (grad @ lu.triu().mT).tril(-1) + (low.mT @ grad).triu()


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

LU_UNPACK = defop(
    "lu_unpack",
    _lu_unpack_fwd,
    {"lu": _lu_unpack_grad},
    outputs=3,
    differentiable=(1, 2),
    node="LuUnpackBackward0",
)
LU_SOLVE = defop(
    "linalg_lu_solve",
    _lu_solve_fwd,
    {"lu": _lu_solve_grad_lu, "b": _lu_solve_grad_b},
    node="LinalgLuSolveBackward0",
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
    failed = first_failure(info, ndim)
    if failed is not None:
        k, batch = failed
        raise RuntimeError(
            f"torch.{name}: {batch}U[{k},{k}] is zero and using it on "
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


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):  # noqa: N803
    """Matches `torch.linalg.lu_solve`: X with A X = B for A = P L U from `lu_factor`
    (X A = B when left=False; A^H in place of A when adjoint=True)."""
    for position, (arg, value) in enumerate((("LU", LU), ("pivots", pivots), ("B", B)), 1):
        expect_tensor("linalg_lu_solve", arg, position, value)
    _check_lu_solve(LU, pivots, B, bool(left))
    return apply(LU_SOLVE, (LU, pivots, B), {"left": bool(left), "adjoint": bool(adjoint)})


def _check_lu_solve(LU, pivots, B, left: bool) -> None:  # noqa: N803
    name, shape = "linalg.lu_solve", LU._data.shape
    check_square(f"torch.{name}", shape, at_least_2d=True)
    n = shape[-1]
    if not (LU.is_floating_point() or LU.is_complex()):
        raise RuntimeError(
            f"torch.{name}: Expected a floating point or complex tensor as input. "
            f"Got {LU.dtype._legacy}"
        )
    if LU.dtype != B.dtype:
        raise RuntimeError(
            f"{name}: Expected LU and B to have the same dtype, but found LU of type "
            f"{LU.dtype._legacy} and B of type {B.dtype._legacy} instead"
        )
    if pivots.dtype._legacy != "Int":
        raise RuntimeError(f"{name}: pivots should be a Tensor of scalar type torch.int32")
    if pivots.dim() == 0 or pivots.shape[-1] != n:
        raise RuntimeError(
            f"{name}: Number of pivots per batch should be same as the dimension of the matrix"
        )
    if tuple(pivots.shape) != shape[:-1]:
        raise RuntimeError(
            f"{name}: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots "
            f"with shape {list(pivots.shape)} instead"
        )
    if B.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    rows, cols = B.shape[-2], B.shape[-1]
    if (rows if left else cols) != n:
        raise RuntimeError(
            f"{name}: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {rows}x{cols})"
        )
    error = broadcast_error([B._data.shape[:-2], shape[:-2]])
    if error is not None:
        raise error
    if pivots.numel() and int(pivots._data.min()) < 1:
        raise RuntimeError(
            "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass "
            "the result of lu_factor?"
        )
    if pivots.numel() and int(pivots._data.max()) > shape[-2]:
        raise RuntimeError(
            "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you "
            "properly pass the result of lu_factor?"
        )
    if LU.dtype._legacy in ("Half", "BFloat16"):
        raise NotImplementedError(
            f"\"linalg.lu_solve_cpu\" not implemented for '{LU.dtype._legacy}'"
        )


# ---- the older top-level forms ----------------------------------------------------------------


@public(name="lu")
def torch_lu(A, pivot=True, get_infos=False, out=None):  # noqa: N803
    """Matches the deprecated `torch.lu`: `(LU, pivots)`, or with `get_infos` `(LU, pivots,
    info)`; it never raises on a zero pivot."""
    _warn_once("lu", _LU_DEPRECATED)
    expect_tensor("_lu_with_info", "self", 1, A)
    _check(A, "torch.lu_factor", pivot)
    factors, pivots, info = apply(LU_FACTOR_EX, (A,))
    return lu_with_info(factors, pivots, info) if get_infos else (factors, pivots)


@public(name="lu_unpack", method=False)
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):  # noqa: N803
    """Matches `torch.lu_unpack`: `(P, L, U)` from `lu_factor`'s packed factors; the parts
    not asked for come back empty."""
    expect_tensor("lu_unpack", "LU_data", 1, LU_data)
    expect_tensor("lu_unpack", "LU_pivots", 2, LU_pivots)
    if LU_data.dim() < 2:
        raise RuntimeError(
            f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
            f"{list(LU_data.shape)} instead"
        )
    if LU_pivots.dtype._legacy != "Int":
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype."
        )
    attrs = {"unpack_data": bool(unpack_data), "unpack_pivots": bool(unpack_pivots)}
    return lu_unpack_result(*apply(LU_UNPACK, (LU_data, LU_pivots), attrs))


@public(name="lu_solve")
def torch_lu_solve(b, LU_data, LU_pivots, *, out=None):  # noqa: N803
    """Matches the deprecated `torch.lu_solve(b, LU, pivots)`: `linalg.lu_solve(LU, pivots, b)`."""
    _warn_once("lu_solve", _LU_SOLVE_DEPRECATED)
    return lu_solve(LU_data, LU_pivots, b)


_LU_DEPRECATED = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and "
    "will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\n"
    "should be replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
    "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
    "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)"
)
_LU_SOLVE_DEPRECATED = (
    "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
    "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
    "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
    "X = torch.linalg.lu_solve(LU, pivots, B)"
)
