"""The Cholesky factorization and triangular solves: `linalg.cholesky(_ex)`, `cholesky`,
`linalg.solve_triangular`, `triangular_solve`, `cholesky_solve`, `cholesky_inverse`."""

from __future__ import annotations

import warnings

import numpy as np

from ...return_types import _result_type
from ..table import promotion
from ..table.errors import expect_tensor
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .decomposition import _LinAlgError
from .lapack_checks import check_square, first_failure

linalg_cholesky_ex = _result_type("linalg_cholesky_ex", ("L", "info"))
triangular_solve_result = _result_type("triangular_solve", ("solution", "cloned_coefficient"))
_warned: set = set()  # PyTorch's deprecation warnings here are TORCH_WARN_ONCE

# ---- forwards on arrays ---------------------------------------------------------------------


def _partial_cholesky(m):
    # LAPACK's unblocked potrf on one matrix that is not positive-definite: the columns before
    # the failing one are factored, the failing diagonal holds its (non-positive) pivot, the
    # rest keeps A's lower triangle. Returns (that factor, the 1-based failing order).
    out = np.tril(m).copy()
    for j in range(m.shape[0]):
        pivot = m[j, j] - out[j, :j] @ out[j, :j]
        if not pivot > 0:
            out[j, j] = pivot
            return out, j + 1
        out[j, j] = np.sqrt(pivot)
        out[j + 1 :, j] = (m[j + 1 :, j] - out[j + 1 :, :j] @ out[j, :j]) / out[j, j]
    return out, 0


def _factor(xp, a):
    """(L, info) with A = L L^H; info > 0 names the first leading minor that is not PD."""
    info = np.zeros(a.shape[:-2], np.int32)
    try:
        return xp.linalg.cholesky(a), info
    except np.linalg.LinAlgError:
        out = np.empty_like(a)
        for index in np.ndindex(a.shape[:-2]):
            out[index], info[index] = _partial_cholesky(a[index])
        return out, info


def _cholesky_ex_fwd(xp, a, *, upper):
    low, info = _factor(xp, a)
    return (low.swapaxes(-1, -2).conj() if upper else low), info


def _cholesky_fwd(xp, a, *, upper):
    low, info = _factor(xp, a)
    _raise_not_pd("cholesky", info, a.ndim)
    return low.swapaxes(-1, -2).conj() if upper else low


def _raise_not_pd(name, info, ndim) -> None:
    failed = first_failure(info, ndim)
    if failed is not None:
        order, batch = failed
        raise _LinAlgError(
            f"{name}: {batch}The factorization could not be completed because the input is "
            f"not positive-definite (the leading minor of order {order} is not "
            f"positive-definite)."
        )


def _substitute(xp, t, b, upper):
    # forward (or back) substitution, row by row over every batch at once: a zero on the
    # diagonal gives inf and nan as LAPACK's trsm does, where solve() would raise
    shape = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    t = xp.broadcast_to(t, shape + t.shape[-2:])
    x = xp.broadcast_to(b, shape + b.shape[-2:]).astype(np.result_type(t, b))
    n = t.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(n - 1, -1, -1) if upper else range(n):
            done = slice(i + 1, n) if upper else slice(0, i)
            rest = t[..., i : i + 1, done] @ x[..., done, :]
            x[..., i, :] = (x[..., i, :] - rest[..., 0, :]) / t[..., i, i, None]
    return x


def solve_triangular_array(xp, a, b, upper, left=True, unitriangular=False):
    """X with A X = B (or X A = B), A read as triangular; the other triangle is ignored."""
    if not left:  # X A = B  <=>  A^T X^T = B^T
        mirrored = solve_triangular_array(
            xp, a.swapaxes(-1, -2), b.swapaxes(-1, -2), not upper, True, unitriangular
        )
        return mirrored.swapaxes(-1, -2)
    t = xp.triu(a) if upper else xp.tril(a)
    if unitriangular:
        t = t.copy()
        n = t.shape[-1]
        t[..., range(n), range(n)] = 1
    try:
        return xp.linalg.solve(t, b)
    except np.linalg.LinAlgError:
        return _substitute(xp, t, b, upper)


def _cholesky_solve_fwd(xp, b, low, *, upper):
    # A = L L^H: solve L Y = B, then L^H X = Y (upper: U^H Y = B, then U X = Y)
    first = solve_triangular_array(
        xp, low.swapaxes(-1, -2).conj() if upper else low, b, upper=False
    )
    return solve_triangular_array(
        xp, low if upper else low.swapaxes(-1, -2).conj(), first, upper=True
    )


def _cholesky_inverse_fwd(xp, low, *, upper):
    n = low.shape[-1]
    identity = xp.broadcast_to(xp.eye(n, dtype=low.dtype), low.shape)
    inverse = solve_triangular_array(xp, low, identity, upper=upper)
    # A^-1 = (L L^H)^-1 = L^-H L^-1, or U^-1 U^-H for A = U^H U
    if upper:
        return inverse @ inverse.swapaxes(-1, -2).conj()
    return inverse.swapaxes(-1, -2).conj() @ inverse


def _triangular_solve_fwd(xp, b, a, *, upper, transpose, unitriangular):
    op = a.swapaxes(-1, -2) if transpose else a
    x = solve_triangular_array(xp, op, b, upper != transpose, True, unitriangular)
    return x, a.copy()


# ---- backward formulas ----------------------------------------------------------------------


def _solve(a, b, upper, left=True, unitriangular=False):
    attrs = {"upper": upper, "left": left, "unitriangular": unitriangular}
    return apply(SOLVE_TRIANGULAR, (a, b), attrs)


def _cholesky_grad(g, out, upper):
    """dA for A = L L^H (Murray, "Differentiation of the Cholesky decomposition", 2016).

    L^-1 dA L^-H = L^-1 dL + (L^-1 dL)^H, and L^-1 dL is lower triangular, so
    dL = L Phi(L^-1 dA L^-H) with Phi the lower triangle, its diagonal halved. The adjoint:
    gA = L^-H sym(Phi(L^H gL)) L^-1, symmetric as PyTorch's.
    """
    low, grad = (out.mT, g.mT) if upper else (out, g)
    inner = (low.mT @ grad).tril()
    inner = 0.5 * (inner + inner.tril(-1).mT)
    return _solve(low, _solve(low.mT, inner, upper=True), upper=False, left=False)


def _cholesky_ex_grad(g, out, upper):
    return _cholesky_grad(g[0], out[0], upper)


def _triangle(grad, upper, unitriangular):
    return grad.triu(int(unitriangular)) if upper else grad.tril(-int(unitriangular))


def _solve_triangular_grad_a(g, a, out, upper, left, unitriangular):
    # X = A^-1 B: gB = A^-H gX and gA = -gB X^H (X = B A^-1: gA = -X^H gB), on A's triangle
    grad_b = _solve(a.mT, g, not upper, left, unitriangular)
    grad = -(grad_b @ out.mT) if left else -(out.mT @ grad_b)
    return _triangle(grad, upper, unitriangular)


def _triangular_solve_grad_b(g, a, upper, transpose, unitriangular):
    if g[0] is None:
        return None
    return _solve(a if transpose else a.mT, g[0], upper == transpose, True, unitriangular)


def _triangular_solve_grad_a(g, a, out, upper, transpose, unitriangular):
    # the solution's part lies on A's triangle; the cloned coefficient's passes whole
    grad = g[1]
    if g[0] is not None:
        grad_b = _triangular_solve_grad_b(g, a, upper, transpose, unitriangular)
        x = out[0]
        part = -(x @ grad_b.mT) if transpose else -(grad_b @ x.mT)
        part = _triangle(part, upper, unitriangular)
        grad = part if grad is None else grad + part
    return grad


def _cholesky_solve_grad_low(g, low, out, upper):
    # X = (L L^H)^-1 B: gB = cholesky_solve(gX), and with S = gB X^H + X gB^H,
    # gL = -S L (upper: -U S), the whole matrix as PyTorch leaves it
    grad_b = apply(CHOLESKY_SOLVE, (g, low), {"upper": upper})
    common = grad_b @ out.mT
    common = common + common.mT
    return -(low @ common) if upper else -(common @ low)


def _cholesky_inverse_grad(g, low, out, upper):
    # X = (L L^H)^-1, dX = -X dA X: gL = -X (gX + gX^H) X L (upper: -U X (...) X)
    common = out @ (g + g.mT) @ out
    return -(low @ common) if upper else -(common @ low)


# ---- the table ------------------------------------------------------------------------------

_FLOAT = promotion.floating_kernel("triangular_solve_cpu")
CHOLESKY_EX = defop(
    "linalg_cholesky_ex",
    _cholesky_ex_fwd,
    {"a": _cholesky_ex_grad},
    outputs=2,
    differentiable=(0,),
    node="LinalgCholeskyExBackward0",
)
CHOLESKY = defop("cholesky", _cholesky_fwd, {"a": _cholesky_grad})
SOLVE_TRIANGULAR = defop(
    "linalg_solve_triangular",
    lambda xp, a, b, *, upper, left, unitriangular: solve_triangular_array(
        xp, a, b, upper, left, unitriangular
    ),
    {
        "a": _solve_triangular_grad_a,
        "b": lambda g, a, upper, left, unitriangular: _solve(
            a.mT, g, not upper, left, unitriangular
        ),
    },
    promote=_FLOAT,
    node="LinalgSolveTriangularBackward0",
)
TRIANGULAR_SOLVE = defop(
    "triangular_solve",
    _triangular_solve_fwd,
    {"b": _triangular_solve_grad_b, "a": _triangular_solve_grad_a},
    outputs=2,
    promote=_FLOAT,
)
CHOLESKY_SOLVE = defop(
    "cholesky_solve",
    _cholesky_solve_fwd,
    {
        "b": lambda g, low, upper: apply(CHOLESKY_SOLVE, (g, low), {"upper": upper}),
        "low": _cholesky_solve_grad_low,
    },
    promote=_FLOAT,
)
CHOLESKY_INVERSE = defop("cholesky_inverse", _cholesky_inverse_fwd, {"low": _cholesky_inverse_grad})

# ---- the public surface ----------------------------------------------------------------------


def _check_square(A, name: str, dtype: bool = True) -> None:
    check_square(name, A._data.shape, at_least_2d=True)
    if dtype and A._data.dtype.kind not in "fc":
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got {A.dtype._legacy}"
        )


def _warn_once(name: str, text: str) -> None:
    if name not in _warned:
        _warned.add(name)
        warnings.warn(text, UserWarning, stacklevel=3)


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """Matches `torch.linalg.cholesky_ex`: `(L, info)`, info > 0 where A is not PD."""
    expect_tensor("linalg_cholesky_ex", "A", 1, A)
    _check_square(A, "linalg.cholesky")
    low, info = apply(CHOLESKY_EX, (A,), {"upper": bool(upper)})
    if check_errors:
        _raise_not_pd("linalg.cholesky_ex", info._data, A._data.ndim)
    return linalg_cholesky_ex(low, info)


def linalg_cholesky(A, *, upper=False, out=None):
    """Matches `torch.linalg.cholesky`: lower-triangular L with A = L L^H."""
    expect_tensor("linalg_cholesky", "A", 1, A)
    _check_square(A, "linalg.cholesky")
    low, info = apply(CHOLESKY_EX, (A,), {"upper": bool(upper)})
    _raise_not_pd("linalg.cholesky", info._data, A._data.ndim)
    return low


@public
def cholesky(input, upper=False, *, out=None):
    """Matches the deprecated `torch.cholesky` (CholeskyBackward0)."""
    _warn_once("cholesky", _CHOLESKY_DEPRECATED)
    expect_tensor("cholesky", "input", 1, input)
    _check_square(input, "cholesky")
    return apply(CHOLESKY, (input,), {"upper": bool(upper)})


def solve_triangular(A, B, *, upper=None, left=True, unitriangular=False, out=None):
    """Matches `torch.linalg.solve_triangular`: X with A X = B (X A = B when left=False)."""
    if upper is None:
        raise TypeError(
            'linalg_solve_triangular() missing 1 required positional arguments: "upper"'
        )
    name = "linalg.solve_triangular"
    _check_square(A, name, dtype=False)  # integers: the kernel's error, from the promotion
    if B._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    n, (rows, cols) = A._data.shape[-1], B._data.shape[-2:]
    if (rows if left else cols) != n:
        raise RuntimeError(
            f"{name}: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {rows}x{cols})"
        )
    attrs = {"upper": bool(upper), "left": bool(left), "unitriangular": bool(unitriangular)}
    return apply(SOLVE_TRIANGULAR, (A, B), attrs)


@public
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """Matches the deprecated `torch.triangular_solve(b, A)`: `(solution, cloned_coefficient)`."""
    _warn_once("triangular_solve", _TRIANGULAR_SOLVE_DEPRECATED)
    _check_sizes("triangular_solve", input, A)
    attrs = {
        "upper": bool(upper),
        "transpose": bool(transpose),
        "unitriangular": bool(unitriangular),
    }
    return triangular_solve_result(*apply(TRIANGULAR_SOLVE, (input, A), attrs))


def _check_sizes(name: str, b, A) -> None:
    a_shape, b_shape = A._data.shape, b._data.shape
    check_square(name, a_shape)
    if a_shape[-1] != b_shape[-2]:
        raise RuntimeError(
            f"Incompatible matrix sizes for {name}: each A matrix is "
            f"{a_shape[-2]} by {a_shape[-1]} but each b matrix is "
            f"{b_shape[-2]} by {b_shape[-1]}"
        )
    if A._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{b.dtype._legacy} and A of type {A.dtype._legacy} instead."
        )


@public
def cholesky_solve(input, input2, upper=False, *, out=None):
    """Matches `torch.cholesky_solve(B, L)`: X with (L L^H) X = B."""
    _check_sizes("cholesky_solve", input, input2)
    return apply(CHOLESKY_SOLVE, (input, input2), {"upper": bool(upper)})


@public
def cholesky_inverse(input, upper=False, *, out=None):
    """Matches `torch.cholesky_inverse(L)`: (L L^H)^-1."""
    _check_square(input, "cholesky_inverse")
    return apply(CHOLESKY_INVERSE, (input,), {"upper": bool(upper)})


_CHOLESKY_DEPRECATED = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
    "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
    "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\n"
    "should be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
    "equivalent results for all valid (symmetric positive definite) inputs."
)
_TRIANGULAR_SOLVE_DEPRECATED = (
    "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular"
    "and will be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its "
    "arguments reversed and does not return a copy of one of the inputs.\n"
    "X = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
    "X = torch.linalg.solve_triangular(A, B)."
)
