"""The QR decomposition: `linalg.qr` (modes reduced, complete, r) and the deprecated
`torch.qr(A, some)`, one node, LinalgQrBackward0."""

from __future__ import annotations

import warnings

from ...return_types import qr as qr_result
from ..shape.joining import cat
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .cholesky import solve_triangular
from .decomposition import _check


def _qr_fwd(xp, a, *, mode):
    if mode == "r":
        r = xp.linalg.qr(a, mode="r")
        return xp.zeros((0,), a.dtype), r
    q, r = xp.linalg.qr(a, mode=mode)
    return q, r


def _copyltu(m):
    # the symmetric matrix whose lower triangle is m's
    lower = m.tril(-1)
    return lower + lower.mT + m.diagonal(0, -2, -1).diag_embed()


def _qr_square_or_tall(gq, gr, q, r):
    # A = QR with A m x n, m >= n: gA = (gQ + Q copyltu(M)) R^-T, M = R gR^T - gQ^T Q
    m = 0
    if gr is not None:
        m = r @ gr.mT
    if gq is not None:
        m = m - gq.mT @ q
    b = q @ _copyltu(m) if not isinstance(m, int) else 0
    if gq is not None:
        b = b + gq
    return solve_triangular(r, b.mT, upper=True).mT


def _qr_grad(g, a, out, mode):
    gq, gr = g
    q, r = out
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
            "linalg.qr."
        )
    rows, cols = a.shape[-2], a.shape[-1]
    if mode == "complete" and rows > cols:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        )
    if rows >= cols:
        return _qr_square_or_tall(gq, gr, q, r)
    # wide: A = Q [R1 R2] with X = A[:, :m] = Q R1 square and Y = A[:, m:] = Q R2
    y = a[..., rows:]
    gr1 = gr[..., :rows] if gr is not None else None
    gy = q @ gr[..., rows:] if gr is not None else a.new_zeros(y.shape)
    if gr is not None:
        gq = (gq if gq is not None else 0) + y @ gr[..., rows:].mT
    gx = _qr_square_or_tall(gq, gr1, q, r[..., :rows])
    return cat([gx, gy], -1)


QR = defop("linalg_qr", _qr_fwd, {"a": _qr_grad}, outputs=2, node="LinalgQrBackward0")


def linalg_qr(A, mode: str = "reduced", *, out=None):  # noqa: N803
    """Matches `torch.linalg.qr`: (Q, R) with A = QR, Q orthonormal, R upper triangular."""
    _check(A, "linalg.qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    return qr_result(*apply(QR, (A,), {"mode": mode}))


_QR_DEPRECATED = (
    "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
    "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string parameter "
    "'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, "
    "'reduced' if some else 'complete')"
)
_warned = []


@public
def qr(input, some: bool = True, *, out=None):
    """Matches `torch.qr` (deprecated, warns once): `linalg.qr` with some=False 'complete'."""
    if not _warned:
        _warned.append(True)
        warnings.warn(_QR_DEPRECATED, UserWarning, stacklevel=2)
    return linalg_qr(input, "reduced" if some else "complete")
