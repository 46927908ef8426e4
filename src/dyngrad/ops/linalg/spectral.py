"""The eigendecompositions: symmetric (Hermitian) `linalg.eigh` and `linalg.eigvalsh`, and
general `linalg.eig` and `linalg.eigvals`."""

from __future__ import annotations

import numpy as np

from ...return_types import linalg_eig, linalg_eigh
from ..creation.ranges import eye
from ..elementwise.complex_numbers import imag, real
from ..table.errors import expect_tensor
from ..table.record import apply
from ..table.registry import defop
from .lapack_checks import check_square
from .solvers import column_major, solve


def _eigh_grad(g, out):
    """dA for A = V diag(L) V^T, read as a general matrix as PyTorch does (no symmetrizing).

    With E_ij = L_j - L_i: gA = V [skew(V^T gV) / E + diag(gL)] V^T, where only the
    skew-symmetric part of V^T gV (the tangent space of the orthogonal matrices) counts.
    Written with tensor ops, so its own gradient (for gradgradcheck) comes from the table.
    """
    grad_values, grad_vectors = g
    values, vectors = out
    if grad_vectors is None:
        return (vectors * grad_values.unsqueeze(-2)) @ vectors.mT
    identity = eye(values.shape[-1], dtype=values.dtype)
    inner = vectors.mT @ grad_vectors
    gaps = values.unsqueeze(-2) - values.unsqueeze(-1) + identity
    inner = 0.5 * (inner - inner.mT) / gaps * (1 - identity)
    if grad_values is not None:
        inner = inner + identity * grad_values.unsqueeze(-2)
    return vectors @ inner @ vectors.mT


def _eigh_fwd(xp, a, uplo):
    values, vectors = xp.linalg.eigh(a, UPLO=uplo)
    return values, column_major(vectors)  # LAPACK's layout, as PyTorch returns it


EIGH = defop(
    "linalg_eigh",
    lambda xp, a, *, uplo: _eigh_fwd(xp, a, uplo),
    {"a": _eigh_grad},
    outputs=2,
    node="LinalgEighBackward0",
)


def _check(A, UPLO, function: str) -> str:  # noqa: N803
    expect_tensor(function, "input", 1, A)
    check_square("linalg.eigh", A._data.shape, at_least_2d=True)
    uplo = str(UPLO).upper()
    if len(str(UPLO)) != 1 or uplo not in "LU":
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    if not (A.is_floating_point() or A.is_complex()) or A.dtype._legacy in ("Half", "BFloat16"):
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{A.dtype._legacy}'")
    return uplo


def eigh(A, UPLO="L", *, out=None):  # noqa: N803
    """Matches `torch.linalg.eigh`: `(eigenvalues, eigenvectors)`, the values ascending,
    A read from its lower (UPLO='L') or upper triangle."""
    uplo = _check(A, UPLO, "linalg_eigh")
    return linalg_eigh(*apply(EIGH, (A,), {"uplo": uplo}))


def eigvalsh(A, UPLO="L", *, out=None):  # noqa: N803
    """Matches `torch.linalg.eigvalsh`: the eigenvalues of a symmetric A, ascending."""
    uplo = _check(A, UPLO, "linalg_eigvalsh")
    return apply(EIGH, (A,), {"uplo": uplo})[0]


# ---- general matrices ---------------------------------------------------------------------

_COMPLEX = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def _eig_fwd(xp, a):
    if not xp.isfinite(a).all():
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    values, vectors = xp.linalg.eig(a)  # LAPACK's geev: unit vectors, largest entry real
    dtype = _COMPLEX.get(a.dtype, a.dtype)  # complex even when every eigenvalue is real
    return values.astype(dtype, copy=False), vectors.astype(dtype, copy=False)


def _eig_grad(g, a, out):
    """dA for A = V diag(L) V^-1 (PyTorch's linalg_eig_backward), with tensor ops.

    With E_ij = L_j - L_i: gA = V^-H [(V^H gV - V^H V diag(Re diag(V^H gV))) / conj(E)
    + diag(gL)] V^H; a real A takes the real part. V is fixed only up to a phase per column,
    so a loss that depends on the phase (Im diag(V^H gV) != 0) has no gradient: refused."""
    grad_values, grad_vectors = g
    values, vectors = out
    n = values.shape[-1]
    identity = eye(n, dtype=values.dtype)
    if grad_vectors is None:
        inner = identity * grad_values.unsqueeze(-2)
    else:
        inner = vectors.mH @ grad_vectors
        diagonal = inner.diagonal(0, -2, -1)
        if bool((imag(diagonal).abs() > 1e-2).any()):  # PyTorch: allclose(Im, 0, 1e-2, 1e-2)
            raise RuntimeError(
                "linalg_eig_backward: The eigenvectors in the complex case are specified up "
                "to multiplication by e^{i phi}. The specified loss function depends on this "
                "quantity, so it is ill-defined."
            )
        inner = inner - vectors.mH @ (vectors * real(diagonal).unsqueeze(-2))
        gaps = values.unsqueeze(-2) - values.unsqueeze(-1) + identity
        inner = inner / gaps.conj() * (1 - identity)
        if grad_values is not None:
            inner = inner + identity * grad_values.unsqueeze(-2)
    grad = solve(vectors.mH, inner @ vectors.mH)
    return grad if a.is_complex() else real(grad)


EIG = defop(
    "linalg_eig",
    lambda xp, a: _eig_fwd(xp, a),
    {"a": _eig_grad},
    outputs=2,
    node="LinalgEigBackward0",
)


def _check_general(A, function: str) -> None:
    expect_tensor(function, "input", 1, A)
    check_square("linalg.eig", A._data.shape, at_least_2d=True)
    if not (A.is_floating_point() or A.is_complex()) or A.dtype._legacy in ("Half", "BFloat16"):
        raise NotImplementedError(f"\"linalg_eig_cpu\" not implemented for '{A.dtype._legacy}'")


def eig(A, *, out=None):  # noqa: N803
    """Matches `torch.linalg.eig`: complex `(eigenvalues, eigenvectors)` of a square A, in
    LAPACK's order, each eigenvector of unit norm with its largest entry real."""
    _check_general(A, "linalg_eig")
    return linalg_eig(*apply(EIG, (A,)))


def eigvals(A, *, out=None):  # noqa: N803
    """Matches `torch.linalg.eigvals`: the complex eigenvalues of a square A."""
    _check_general(A, "linalg_eigvals")
    return apply(EIG, (A,))[0]
