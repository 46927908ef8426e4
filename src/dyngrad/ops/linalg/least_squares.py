"""Least squares and the numerical rank: `torch.linalg.lstsq` and `torch.linalg.matrix_rank`.

Every driver solves with the SVD (the minimum-norm solution, singular values at or below
rcond times the largest dropped), so the solutions agree with LAPACK's wherever the problem
is well posed; what each driver fills in (residuals, rank, singular values) is PyTorch's.
"""

from __future__ import annotations

import numpy as np

from ..._tensor import new_tensor
from ...return_types import linalg_lstsq
from ...runtime import dtypes
from ..table.errors import broadcast_error, expect_tensor
from ..table.record import apply
from ..table.registry import defop
from .lapack_checks import check_square
from .matrix_functions import PINV, _pinv_grad

_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


# Note [lstsq outputs per driver]
# PyTorch fills the outputs by driver, as LAPACK does: `rank` for all but gels, the
# `singular_values` for gelsd and gelss only (both empty otherwise), and `residuals`, the
# squared norm of each column of A X - B, only for tall A (m > n) with a driver other than
# gelsy, and for gelsd/gelss only when every matrix has full rank n. An empty output keeps
# the shape (0,).


def _solve_svd(xp, a, b, rcond):
    """The minimum-norm least-squares solution, the rank and the singular values."""
    m, n = a.shape[-2], a.shape[-1]
    batch = a.shape[:-2]
    real = np.empty(0, a.dtype).real.dtype
    if m == 0 or n == 0:
        x = xp.zeros(batch + (n, b.shape[-1]), a.dtype)
        return x, xp.zeros(batch, np.int64), xp.zeros(batch + (0,), real)
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    keep = s > rcond * s[..., :1]
    inverse = xp.where(keep, 1 / xp.where(keep, s, 1), 0).astype(s.dtype)
    coefficients = (xp.conj(u).swapaxes(-1, -2) @ b) * inverse[..., None]
    x = (xp.conj(vh).swapaxes(-1, -2) @ coefficients).astype(a.dtype, copy=False)
    return x, keep.sum(-1).astype(np.int64), s


def _lstsq_fwd(xp, a, b, *, rcond, driver, vector):
    if vector:
        b = b[..., None]
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = xp.broadcast_to(a, batch + a.shape[-2:])
    b = xp.broadcast_to(b, batch + b.shape[-2:])
    m, n = a.shape[-2], a.shape[-1]
    x, rank, s = _solve_svd(xp, a, b, rcond)
    real = s.dtype
    residuals = xp.zeros((0,), real)
    full = driver not in ("gelsd", "gelss") or bool((rank == n).all())
    if m > n and driver != "gelsy" and full:  # See Note [lstsq outputs per driver]
        r = a @ x - b
        residuals = (xp.abs(r) ** 2).sum(-2).astype(real)
    if driver == "gels":
        rank = xp.zeros((0,), np.int64)
    if driver not in ("gelsd", "gelss"):
        s = xp.zeros((0,), real)
    return (x[..., 0] if vector else x), residuals, rank, s


def _as_matrix(t, vector):
    return t.unsqueeze(-1) if vector else t


def _residual_parts(g, a, b, out, vector):
    """r = A X - B and gL broadcast over r's rows, or None when the residuals carry no
    gradient; d(sum_j gL_j |r_j|^2) = 2 r gL, and X's own change is orthogonal to r."""
    g_res = g[1]
    if g_res is None or g_res.numel() == 0:
        return None
    x = _as_matrix(out[0], vector)
    return (a @ x - _as_matrix(b, vector)) * g_res.unsqueeze(-2), x


def _pinv(a):
    m, n = a.shape[-2], a.shape[-1]
    return apply(PINV, (a,), {"atol": 0.0, "rtol": _eps(a) * max(m, n), "hermitian": False})


def _eps(t) -> float:
    return float(np.finfo(t._data.dtype).eps)  # a complex dtype's is its real part's


def _lstsq_grad_a(g, a, b, out, vector):
    # X = pinv(A) B: the gradient goes through pinv's, with g_pinv = gX B^H
    grad = None
    if g[0] is not None:
        g_pinv = _as_matrix(g[0], vector) @ _as_matrix(b, vector).mT
        grad = _pinv_grad(g_pinv, a, _pinv(a))
    parts = _residual_parts(g, a, b, out, vector)
    if parts is not None:
        weighted, x = parts
        grad = 2 * weighted @ x.mT if grad is None else grad + 2 * weighted @ x.mT
    return grad


def _lstsq_grad_b(g, a, b, out, vector):
    grad = None
    if g[0] is not None:
        grad = _pinv(a).mT @ _as_matrix(g[0], vector)
    parts = _residual_parts(g, a, b, out, vector)
    if parts is not None:
        grad = -2 * parts[0] if grad is None else grad - 2 * parts[0]
    return grad.squeeze(-1) if vector and grad is not None else grad


LSTSQ = defop(
    "linalg_lstsq",
    _lstsq_fwd,
    {"a": _lstsq_grad_a, "b": _lstsq_grad_b},
    outputs=4,
    differentiable=(0, 1),
    node="LinalgLstsqBackward0",
)


def _check_lstsq(A, B, driver):  # noqa: N803
    if A._data.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if B._data.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if A.dtype != B.dtype:
        raise RuntimeError(
            "torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
            f"input's dtype {A.dtype._legacy} and other's dtype {B.dtype._legacy}"
        )
    diff = A._data.ndim - B._data.ndim
    if not 0 <= diff <= 1:
        raise RuntimeError(
            "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
            "(input.dim() - other.dim()) <= 1"
        )
    if A._data.shape[-2] != (B._data.shape[-1] if diff else B._data.shape[-2]):
        which = "other.size(-1)" if diff else "other.size(-2)"
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match {which}")
    if driver not in _DRIVERS:
        raise RuntimeError(
            "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    error = broadcast_error((A.shape[:-2], B.shape[: B.dim() - 2 + diff]))
    if error is not None:
        raise error
    if A._data.dtype.kind not in "fc" or A.dtype in (dtypes.float16, dtypes.bfloat16):
        raise RuntimeError("This function doesn't handle types other than float and double")
    return bool(diff)


def lstsq(A, B, rcond=None, *, driver=None):  # noqa: N803
    """Matches `torch.linalg.lstsq`: (solution, residuals, rank, singular_values).

    The CPU default driver is 'gelsy'. Every driver solves through the SVD here, so 'gels'
    on a rank-deficient matrix gives the minimum-norm solution where LAPACK's raises."""
    driver = "gelsy" if driver is None else driver
    vector = _check_lstsq(A, B, driver)
    if rcond is None:
        rcond = _eps(A) * max(A.shape[-2], A.shape[-1])
    attrs = {"rcond": float(rcond), "driver": driver, "vector": vector}
    return linalg_lstsq(*apply(LSTSQ, (A, B), attrs))


# ---- the numerical rank ---------------------------------------------------------------------


def _tolerance(s, A, atol, rtol):  # noqa: N803
    """max(atol, rtol * the largest singular value), as `linalg.matrix_rank` documents:
    rtol defaults to eps * max(m, n), or to 0 where a positive atol is given."""
    atol = np.asarray(0.0 if atol is None else getattr(atol, "_data", atol))
    if rtol is None:
        rtol = np.where(atol > 0, 0.0, _eps(A) * max(A.shape[-2], A.shape[-1]))
    largest = s.max(-1) if s.shape[-1] else np.zeros(s.shape[:-1], s.dtype)
    return np.maximum(atol, np.asarray(getattr(rtol, "_data", rtol)) * largest)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):  # noqa: N803
    """Matches `torch.linalg.matrix_rank`: the number of singular values (absolute
    eigenvalues when `hermitian`) above max(atol, rtol * the largest). The older `tol`
    (positional or keyword) is an atol with rtol 0."""
    expect_tensor("linalg_matrix_rank", "input", 1, A)
    if A._data.ndim < 2:
        raise RuntimeError(
            "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions."
        )
    if A._data.dtype.kind not in "fc" or A.dtype in (dtypes.float16, dtypes.bfloat16):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    a = A._data
    if hermitian:
        check_square("linalg.eigh", a.shape)
        s = np.abs(np.linalg.eigvalsh(a)) if a.size else np.zeros(a.shape[:-1], a.real.dtype)
    elif min(a.shape[-2:]) == 0:
        s = np.zeros(a.shape[:-2] + (0,), a.real.dtype)
    else:
        s = np.linalg.svd(a, compute_uv=False)
    rank = (s > _tolerance(s, A, atol, rtol)[..., None]).sum(-1)
    return new_tensor(np.asarray(rank, np.int64))
