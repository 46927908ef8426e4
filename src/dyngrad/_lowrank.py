"""`torch.svd_lowrank` and `torch.pca_lowrank`: randomized low-rank SVD (Halko, Martinsson
and Tropp 2009, Algorithms 4.4 and 5.1). The random test matrix is drawn with `torch.randn`
as PyTorch draws it, so after the same `manual_seed` the results are PyTorch's."""

from __future__ import annotations

from . import linalg
from ._tensor import Tensor
from .ops.creation.random import randn
from .runtime import dtypes

__all__ = ["svd_lowrank", "pca_lowrank"]


def _floating(A: Tensor):
    return A.dtype if A.is_floating_point() or A.is_complex() else dtypes.float32


def _range_basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    """An orthonormal (m, q) basis Q whose span nearly holds A - M's range: the range of
    (A - M) R for a Gaussian R, sharpened by `niter` power iterations, re-orthonormalized
    after each product so that small singular values are not lost to rounding."""

    def times(B, X):  # (A - M) X, or its conjugate transpose's, without forming A - M
        return B[0].matmul(X) if B[1] is None else B[0].matmul(X) - B[1].matmul(X)

    R = randn(A.shape[-1], q, dtype=_floating(A))
    forward, backward = (A, M), (A.mH, None if M is None else M.mH)
    Q = linalg.qr(times(forward, R)).Q
    for _ in range(niter):
        Q = linalg.qr(times(backward, Q)).Q
        Q = linalg.qr(times(forward, Q)).Q
    return Q


def _svd_lowrank(A: Tensor, q: int, niter: int, M: Tensor | None) -> tuple:
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    wide = m < n
    if wide:  # the algorithm wants a tall matrix: factor the conjugate transpose
        A, M = A.mH, None if M is None else M.mH
    Q = _range_basis(A, q, niter, M)
    B = Q.mH.matmul(A)
    if M is not None:
        B = B - Q.mH.matmul(M)
    U, S, Vh = linalg.svd(B, full_matrices=False)
    U, V = Q.matmul(U), Vh.mH
    return (V, S, U) if wide else (U, S, V)


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None):
    """Matches `torch.svd_lowrank`: (U, S, V) with A - M ≈ U diag(S) Vᴴ, rank q."""
    return _svd_lowrank(A, 6 if q is None else q, 2 if niter is None else niter, M)


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2):
    """Matches `torch.pca_lowrank` (dense inputs): the SVD of the column-centred A."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter, None)
