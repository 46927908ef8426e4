"""The symmetric (Hermitian) eigendecomposition: `linalg.eigh` and `linalg.eigvalsh`."""

from __future__ import annotations

from ...return_types import linalg_eigh
from ..creation.ranges import eye
from ..table.errors import expect_tensor
from ..table.record import apply
from ..table.registry import defop
from .lapack_checks import check_square
from .solvers import column_major


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
