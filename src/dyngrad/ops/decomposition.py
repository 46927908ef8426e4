"""Matrix decompositions: the SVD (`linalg.svd`, `linalg.svdvals`), for the spectral norms."""

from __future__ import annotations

from .registry import apply, defop


def _svd_grad(g, out, full_matrices):
    """d(U, S, Vh)/dA for the real SVD (Townsend, "Differentiating the SVD", 2016).

    With F_ij = 1/(s_j^2 - s_i^2) off the diagonal:
        dA = U [(F o (U^T gU - gU^T U)) S + diag(gS) + S (F o (V^T gV - gV^T V))] V^T
             + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T)
    Written with tensor ops, so its own gradient (for gradgradcheck) comes from the table.
    """
    from .creation import eye

    gU, gS, gVh = g
    U, S, Vh = out
    k = S.shape[-1]
    if full_matrices:  # only the first k singular vectors carry information
        U, Vh = U[..., :k], Vh[..., :k, :]
        gU = gU[..., :k] if gU is not None else None
        gVh = gVh[..., :k, :] if gVh is not None else None
    if gU is None and gVh is None:
        return (U * gS.unsqueeze(-2)) @ Vh
    identity = eye(k, dtype=S.dtype)
    inner = identity * gS.unsqueeze(-2) if gS is not None else 0.0
    S2 = S * S
    F = (1 - identity) / (S2.unsqueeze(-2) - S2.unsqueeze(-1) + identity)
    V = Vh.mT
    if gU is not None:
        UtgU = U.mT @ gU
        inner = inner + (F * (UtgU - UtgU.mT)) * S.unsqueeze(-2)
    if gVh is not None:
        gV = gVh.mT
        VtgV = V.mT @ gV
        inner = inner + S.unsqueeze(-1) * (F * (VtgV - VtgV.mT))
    grad = U @ inner @ Vh
    if gU is not None and U.shape[-2] > k:  # the part of gU outside U's column space
        grad = grad + ((gU - U @ (U.mT @ gU)) / S.unsqueeze(-2)) @ Vh
    if gVh is not None and V.shape[-2] > k:
        grad = grad + U @ ((gVh - (gVh @ V) @ Vh) / S.unsqueeze(-1))
    return grad


SVD = defop("linalg_svd",
            lambda xp, x, *, full_matrices: tuple(xp.linalg.svd(x, full_matrices=full_matrices)),
            {"x": _svd_grad}, outputs=3, node="LinalgSvdBackward0")


def svd(A, full_matrices=True, *, driver=None, out=None):  # noqa: N803
    """Matches `torch.linalg.svd`: `(U, S, Vh)` with `A = U diag(S) Vh`."""
    from ..return_types import linalg_svd

    _check(A, "linalg.svd")
    return linalg_svd(*apply(SVD, (A,), {"full_matrices": bool(full_matrices)}))


def svdvals(A, *, driver=None, out=None):  # noqa: N803
    """Matches `torch.linalg.svdvals`: the singular values, largest first."""
    _check(A, "linalg.svdvals")
    return apply(SVD, (A,), {"full_matrices": False})[1]


def _check(A, name: str) -> None:
    if A._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if not (A.is_floating_point() or A.is_complex()):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {A.dtype._legacy}")
