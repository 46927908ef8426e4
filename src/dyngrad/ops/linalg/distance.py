"""`cdist`: pairwise p-norm distances between the rows of two (batches of) matrices.

Two rows, as in PyTorch: `_cdist_forward` for any p (CdistBackward0), and for p = 2 on larger
inputs the matrix-product form |a|² - 2 a·b + |b|² (EuclideanDistBackward0, under a view),
which is faster and which PyTorch picks when either side has more than 25 rows.
"""

from __future__ import annotations

import math

import numpy as np

from ...runtime.dtypes import LOW_PRECISION
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public


def _cdist_fwd(xp, x1, x2, *, p):
    diff = xp.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return xp.count_nonzero(diff, axis=-1).astype(x1.dtype)
    if p == math.inf:
        return diff.max(axis=-1) if diff.shape[-1] else diff.sum(axis=-1)
    if p == 1:
        return diff.sum(axis=-1)
    if p == 2:
        return xp.sqrt((diff * diff).sum(axis=-1))
    return (diff**p).sum(axis=-1) ** (1 / p)


def _cdist_pair_grad(g, x1, x2, p, out):
    # d dist_ij / d x1_i = sign(d) |d|^(p-1) / dist^(p-1), 0 where dist is 0 (as PyTorch)
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    dist = out.unsqueeze(-1)
    if p == 0:
        slope = diff * 0
    elif p == 1:
        slope = diff.sign()
    elif p == math.inf:
        slope = diff.sign() * (diff.abs() == dist)
    elif p == 2:
        slope = (diff / dist).masked_fill(dist == 0, 0.0)
    else:
        slope = (diff.sign() * diff.abs().pow(p - 1) / dist.pow(p - 1)).masked_fill(dist == 0, 0.0)
    return slope * g.unsqueeze(-1)


CDIST = defop(
    "cdist",
    _cdist_fwd,
    {
        "x1": lambda g, x1, x2, p, out: _cdist_pair_grad(g, x1, x2, p, out).sum(-2),
        "x2": lambda g, x1, x2, p, out: -_cdist_pair_grad(g, x1, x2, p, out).sum(-3),
    },
    node="CdistBackward0",
)


def _euclidean_fwd(xp, x1, x2):
    # PyTorch's exact form: [-2 a, |a|², 1] @ [b, 1, |b|²]^T, clamped, square-rooted
    n1 = (x1 * x1).sum(-1, keepdims=True)
    n2 = (x2 * x2).sum(-1, keepdims=True)
    a = xp.concatenate([x1 * -2, n1, xp.ones_like(n1)], -1)
    b = xp.concatenate([x2, xp.ones_like(n2), n2], -1)
    out = xp.sqrt(xp.maximum(xp.matmul(a, xp.swapaxes(b, -1, -2)), 1e-30))
    return out.astype(x1.dtype, copy=False)  # (a half type's product comes back float32)


def _euclidean_x1_grad(g, x1, x2, out):
    ratio = (g / out).masked_fill(out == 0, 0.0)
    return x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2)


def _euclidean_x2_grad(g, x1, x2, out):
    ratio = (g / out).masked_fill(out == 0, 0.0)
    return x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT.matmul(x1)


EUCLIDEAN_DIST = defop(
    "euclidean_dist",
    _euclidean_fwd,
    {"x1": _euclidean_x1_grad, "x2": _euclidean_x2_grad},
    node="EuclideanDistBackward0",
)

_MODES = (
    None,
    "use_mm_for_euclid_dist_if_necessary",
    "use_mm_for_euclid_dist",
    "donot_use_mm_for_euclid_dist",
)


@public(method=False)
def cdist(x1, x2, p=2.0, compute_mode=None):
    """Matches `torch.cdist`: the p-norm distance of every row of x1 to every row of x2."""
    a, b = x1._data, x2._data
    if a.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {a.ndim}D")
    if b.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {b.ndim}D")
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} X2: {b.shape[-1]}"
        )
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.dtype.is_floating_point:
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: {t.dtype._legacy}"
            )
    if x1.dtype != x2.dtype:
        raise RuntimeError(
            f"expected scalar type {x1.dtype._legacy} but found {x2.dtype._legacy}\n"
            "cdist takes two tensors of one dtype: cast one to the other."
        )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    p = float(p)
    rows1, rows2 = a.shape[-2], b.shape[-2]
    use_mm = p == 2 and (
        compute_mode == "use_mm_for_euclid_dist"
        or (
            compute_mode in (None, "use_mm_for_euclid_dist_if_necessary")
            and (rows1 > 25 or rows2 > 25)
        )
    )
    if not use_mm:
        if a.dtype in LOW_PRECISION:  # PyTorch's direct kernel has no half types
            raise NotImplementedError(f"\"cdist\" not implemented for '{x1.dtype._legacy}'")
        return apply(CDIST, (x1, x2), {"p": p})
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    if math.prod(batch) == 1:  # as PyTorch: the inputs as they are
        return apply(EUCLIDEAN_DIST, (x1, x2)).view(*batch, rows1, rows2)
    e1 = x1.expand(*batch, rows1, a.shape[-1]).contiguous().view(-1, rows1, a.shape[-1])
    e2 = x2.expand(*batch, rows2, b.shape[-1]).contiguous().view(-1, rows2, b.shape[-1])
    return apply(EUCLIDEAN_DIST, (e1, e2)).view(*batch, rows1, rows2)
