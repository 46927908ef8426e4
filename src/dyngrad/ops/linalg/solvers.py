"""General linear systems: `linalg.solve`, `linalg.solve_ex` and `linalg.inv_ex` on LU, and
the pseudo-inverse `linalg.pinv`."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...return_types import linalg_inv_ex, linalg_solve_ex
from ..table import record
from ..table.errors import broadcast_error, expect_tensor
from ..table.record import apply
from ..table.registry import defop
from .cholesky import _substitute
from .decomposition import _LinAlgError
from .lapack_checks import check_square, first_failure
from .matrix_functions import PINV

# ---- forwards on arrays ---------------------------------------------------------------------


def _lu(m):
    """LAPACK getf2 on one matrix: (packed LU, row order, info), info the first zero pivot.

    Like LAPACK, a zero pivot is recorded and the factorization goes on past it, so the
    solve that follows divides by zero and gives the inf and nan that PyTorch returns.
    """
    lu = np.array(m)
    n = lu.shape[0]
    order, info = np.arange(n), 0
    for k in range(n):
        p = k + int(np.argmax(np.abs(lu[k:, k])))
        lu[[k, p]], order[[k, p]] = lu[[p, k]], order[[p, k]]
        if lu[k, k] == 0:
            info = info or k + 1
            continue
        lu[k + 1 :, k] /= lu[k, k]
        lu[k + 1 :, k + 1 :] -= np.outer(lu[k + 1 :, k], lu[k, k + 1 :])
    return lu, order, info


def _singular_solve(xp, a, b):
    # one matrix at a time, as LAPACK's getrf + getrs: (solution, info)
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a_full = np.broadcast_to(a, shape + a.shape[-2:])
    x = np.broadcast_to(b, shape + b.shape[-2:]).astype(np.result_type(a, b))
    info = np.zeros(a.shape[:-2], np.int32)
    with np.errstate(divide="ignore", invalid="ignore"):
        for index in np.ndindex(shape):
            lu, order, k = _lu(a_full[index])
            info[index[len(shape) - a.ndim + 2 :]] = k
            low = np.tril(lu, -1) + np.eye(lu.shape[0], dtype=lu.dtype)
            y = _substitute(xp, low, x[index][order], upper=False)
            x[index] = _substitute(xp, np.triu(lu), y, upper=True)
    return x, info


def _solve_fwd(xp, a, b, *, left, vector):
    """(X, info) with A X = B (X A = B when not left); B a vector (batch) when `vector`."""
    if vector:
        b = b[..., None]
    if not left:  # X A = B  <=>  A^T X^T = B^T
        a, b = a.swapaxes(-1, -2), b.swapaxes(-1, -2)
    try:
        x, info = xp.linalg.solve(a, b), np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        x, info = _singular_solve(xp, a, b)
    if vector:
        return x[..., 0], info
    # LAPACK's layouts, as PyTorch returns them (and a later reshape names its node by them)
    return (column_major(x) if left else xp.ascontiguousarray(x.swapaxes(-1, -2))), info


def column_major(x):
    """`x` with each matrix stored column by column, as LAPACK writes its results (real
    dtypes: dyngrad's `.real` of a complex tensor needs its last axis contiguous)."""
    if x.dtype.kind == "c":
        return x
    return x.swapaxes(-1, -2).copy().swapaxes(-1, -2)


def _inv_ex_fwd(xp, a):
    try:
        inverse, info = xp.linalg.inv(a), np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        identity = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
        inverse, info = _singular_solve(xp, a, identity)
    return column_major(inverse), info


# ---- backward formulas ----------------------------------------------------------------------


def _solve(a, b, left, vector):
    return apply(SOLVE_EX, (a, b), {"left": left, "vector": vector})[0]


def _solve_grad_b(g, a, left, vector):
    # X = A^-1 B: gB = A^-H gX (X = B A^-1: gB = gX A^-H)
    return _solve(a.mH, g[0], left, vector) if g[0] is not None else None


def _solve_grad_a(g, a, out, left, vector):
    # gA = -gB X^H (X = B A^-1: gA = -X^H gB); a vector X is a column
    if g[0] is None:
        return None
    grad_b, x = _solve_grad_b(g, a, left, vector), out[0]
    if vector:
        return -(grad_b.unsqueeze(-1) @ x.conj().unsqueeze(-2))
    return -(grad_b @ x.mH) if left else -(x.mH @ grad_b)


def _inv_ex_grad(g, out):
    # d(A^-1) = -A^-1 dA A^-1, so gA = -A^-H gX A^-H
    return -(out[0].mH @ g[0] @ out[0].mH)


# ---- the table ------------------------------------------------------------------------------

SOLVE_EX = defop(
    "linalg_solve_ex",
    _solve_fwd,
    {"a": _solve_grad_a, "b": _solve_grad_b},
    outputs=2,
    differentiable=(0,),
    node="LinalgSolveExBackward0",
)
INV_EX = defop(
    "linalg_inv_ex",
    _inv_ex_fwd,
    {"a": _inv_ex_grad},
    outputs=2,
    differentiable=(0,),
    node="LinalgInvExBackward0",
)

# ---- the public surface ----------------------------------------------------------------------


def _check_floating(A, name: str) -> None:
    if not (A.is_floating_point() or A.is_complex()):
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got {A.dtype._legacy}"
        )


def _low_precision(A) -> bool:
    return A.dtype._legacy in ("Half", "BFloat16")


def _check_solve(A, B, left: bool) -> bool:
    """PyTorch's checks of linalg.solve, in its order; True when B is a (batch of) vector."""
    name = "linalg.solve"
    _check_floating(A, name)
    if A.dtype != B.dtype:
        raise RuntimeError(
            f"{name}: Expected A and B to have the same dtype, but found A of type "
            f"{A.dtype._legacy} and B of type {B.dtype._legacy} instead"
        )
    a_shape, b_shape = A._data.shape, B._data.shape
    # NumPy's rule: B is a vector when 1-D, or a batch of vectors shaped as A without a dim
    vector = len(b_shape) == 1 or (len(b_shape) == len(a_shape) - 1 and b_shape == a_shape[:-1])
    if len(a_shape) < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    check_square(name, a_shape)
    n = a_shape[-1]
    rows, cols = (b_shape[-1], 1) if vector else b_shape[-2:] if len(b_shape) >= 2 else (0, 0)
    if not vector and len(b_shape) < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if (rows if left else cols) != n:
        raise RuntimeError(
            f"{name}: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {rows}x{cols})"
        )
    if vector and not left:
        raise RuntimeError(
            f"{name}: Vector broadcasting of the left hand side is not supported for left=False."
            " In this case linalg.solve is equivalent to B / A.squeeze(-1)"
        )
    error = broadcast_error([b_shape[:-1] if vector else b_shape[:-2], a_shape[:-2]])
    if error is not None:
        raise error
    if _low_precision(A):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{A.dtype._legacy}'")
    return vector


def _raise_singular(name: str, info, ndim: int) -> None:
    failed = first_failure(info, ndim)
    if failed is not None:
        raise _LinAlgError(
            f"torch.{name}: {failed[1]}The solver failed because the input matrix is singular."
        )


def solve_ex(A, B, *, left=True, check_errors=False, out=None):  # noqa: N803
    """Matches `torch.linalg.solve_ex`: `(result, info)`, info > 0 where A is singular."""
    expect_tensor("linalg_solve_ex", "A", 1, A)
    expect_tensor("linalg_solve_ex", "B", 2, B)
    vector = _check_solve(A, B, bool(left))
    result, info = apply(SOLVE_EX, (A, B), {"left": bool(left), "vector": vector})
    if check_errors:
        _raise_singular("linalg.solve_ex", info._data, A._data.ndim)
    return linalg_solve_ex(result, info)


def solve(A, B, *, left=True, out=None):  # noqa: N803
    """Matches `torch.linalg.solve`: X with A X = B (X A = B when left=False)."""
    expect_tensor("linalg_solve", "A", 1, A)
    expect_tensor("linalg_solve", "B", 2, B)
    vector = _check_solve(A, B, bool(left))
    result, info = apply(SOLVE_EX, (A, B), {"left": bool(left), "vector": vector})
    _raise_singular("linalg.solve", info._data, A._data.ndim)
    return result


def inv_ex(A, *, check_errors=False, out=None):  # noqa: N803
    """Matches `torch.linalg.inv_ex`: `(inverse, info)`, info > 0 where A is singular."""
    expect_tensor("linalg_inv_ex", "A", 1, A)
    check_square("linalg.inv", A._data.shape, at_least_2d=True)
    _check_floating(A, "linalg.inv")
    if _low_precision(A):
        raise RuntimeError(f"linalg.inv: Low precision dtypes not supported. Got {A.dtype._legacy}")
    inverse, info = apply(INV_EX, (A,))
    if check_errors:
        raise_not_invertible("linalg.inv_ex", info._data, A._data.ndim)
    return linalg_inv_ex(inverse, info)


def raise_not_invertible(name: str, info, ndim: int) -> None:
    """PyTorch's error for the first singular matrix of a batch, its zero pivot named."""
    failed = first_failure(info, ndim)
    if failed is not None:
        k, batch = failed
        raise _LinAlgError(
            f"{name}: {batch}The diagonal element {k} is zero, the inversion could not be "
            f"completed because the input matrix is singular."
        )


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):  # noqa: N803
    """Matches `torch.linalg.pinv`: singular values at or below max(atol, rtol * the largest)
    count as zero (rtol is eps * max(m, n) unless atol > 0 alone is given); `rcond` is the
    older name of rtol; `hermitian=True` reads A's lower triangle through eigh."""
    expect_tensor("linalg_pinv", "input", 1, A)
    shape = A._data.shape
    if len(shape) < 2 or A.dtype._legacy not in (
        "Float",
        "Double",
        "ComplexFloat",
        "ComplexDouble",
    ):
        raise RuntimeError(
            f"linalg.pinv({A.dtype._legacy}{{{list(shape)}}}): expected a tensor with 2 or more "
            f"dimensions of float, double, cfloat or cdouble types"
        )
    if hermitian:
        check_square("linalg.eigh", shape)
    rtol = rcond if rcond is not None else rtol
    if rtol is None:
        given = atol is not None and bool(np.all(_tolerance(atol) > 0))
        rtol = 0.0 if given else float(np.finfo(A._data.dtype).eps) * max(shape[-2:])
    atol = 0.0 if atol is None else atol
    atol, rtol = _tolerance(atol), _tolerance(rtol)
    error = broadcast_error([np.shape(atol), np.shape(rtol), shape[:-2]])
    if error is not None:
        raise error
    attrs = {"atol": atol, "rtol": rtol, "hermitian": bool(hermitian)}
    result = apply(PINV, (A,), attrs)
    if record.autocast is not None:  # PyTorch's pinv ends in a matmul, which autocast lowers
        result = record.autocast("matmul", (result,))[0]
    return result


def _tolerance(value):
    # a number, or a tensor broadcast against the batch
    return np.asarray(value._data, np.float64) if isinstance(value, Tensor) else float(value)
