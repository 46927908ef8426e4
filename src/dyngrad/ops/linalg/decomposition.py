"""Matrix decompositions: the SVD (`linalg.svd`, `linalg.svdvals`), for the spectral norms, and
the inverse (`linalg.inv`, `torch.inverse`)."""

from __future__ import annotations

import numpy as np

from ...return_types import linalg_svd
from ..creation.ranges import eye
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public


def _svd_grad(g, out, full_matrices):
    """d(U, S, Vh)/dA for the real SVD (Townsend, "Differentiating the SVD", 2016).

    With F_ij = 1/(s_j^2 - s_i^2) off the diagonal:
        dA = U [(F o (U^T gU - gU^T U)) S + diag(gS) + S (F o (V^T gV - gV^T V))] V^T
             + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T)
    Written with tensor ops, so its own gradient (for gradgradcheck) comes from the table.
    """

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


SVD = defop(
    "linalg_svd",
    lambda xp, x, *, full_matrices: tuple(xp.linalg.svd(x, full_matrices=full_matrices)),
    {"x": _svd_grad},
    outputs=3,
    node="LinalgSvdBackward0",
)


def svd(A, full_matrices=True, *, driver=None, out=None):  # noqa: N803
    """Matches `torch.linalg.svd`: `(U, S, Vh)` with `A = U diag(S) Vh`."""

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
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got {A.dtype._legacy}"
        )


# ---- the inverse ------------------------------------------------------------------------------


class _LinAlgError(RuntimeError):
    """`torch.linalg.LinAlgError`: a matrix the factorization cannot handle (singular)."""


def _zero_pivot(a) -> int:
    # the 1-based diagonal element that LU with partial pivoting finds exactly zero, as
    # LAPACK's getrf reports it (0 when none is)
    u = np.array(a, dtype=np.float64)
    n = u.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(u[k:, k])))
        if u[p, k] == 0:
            return k + 1
        u[[k, p]] = u[[p, k]]
        u[k + 1 :, k:] -= np.outer(u[k + 1 :, k] / u[k, k], u[k, k:])
    return 0


def _inv_fwd(xp, a):
    try:
        return xp.linalg.inv(a)
    except np.linalg.LinAlgError:
        for i, m in enumerate(a.reshape(-1, *a.shape[-2:])):
            k = _zero_pivot(m)
            if k:
                batch = f"(Batch element {i}): " if a.ndim > 2 else ""
                raise _LinAlgError(
                    f"linalg.inv: {batch}The diagonal element {k} is zero, the inversion could "
                    f"not be completed because the input matrix is singular."
                ) from None
        raise


# d(A^-1) = -A^-1 dA A^-1, so the gradient of A is -A^-T g A^-T
INV = defop(
    "linalg_inv",
    _inv_fwd,
    {"a": lambda g, out: -(out.mT @ g @ out.mT)},
    node="LinalgInvExBackward0",
)


@public(name="inverse")
def inv(A):
    """Matches `torch.linalg.inv` (and `torch.inverse`)."""
    shape = A._data.shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        dims = f"{shape[-2]} by {shape[-1]}" if len(shape) >= 2 else f"{len(shape)}-d"
        raise RuntimeError(
            f"linalg.inv: A must be batches of square matrices, but they are {dims} matrices"
        )
    if A._data.dtype.kind not in "fc":
        raise RuntimeError(
            f"linalg.inv: Expected a floating point or complex tensor as input. "
            f"Got {A.dtype._legacy}"
        )
    return apply(INV, (A,))
