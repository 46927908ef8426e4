"""Reductions over the last axis or the leading axes of a float array, faster than NumPy's own
on the short rows of a training step: sums as BLAS matrix-vector products, maxima by halving.

# Note [Sums by GEMV]
# NumPy reduces a C-contiguous array along a short last axis (layer_norm's 128 features, a
# softmax row) one row at a time, and sums over leading axes (a bias gradient) row after row:
# several times the cost of one elementwise pass over the same array. A product with a vector
# of ones computes the same sums in BLAS, 3-5x faster on the activation-sized arrays of
# layer_norm, softmax and bias gradients. Both accumulate in the array's own precision, so
# the results agree to rounding (each is as close to the exact sum as the other; PyTorch's
# own kernels use yet another order). Small, non-contiguous or non-float arrays keep NumPy's
# reductions.
#
# A maximum has no BLAS form, but over rows of up to 64 (attention scores, class scores) the
# row maxima of pairwise `maximum`s of the two halves, halved again until one column is left,
# cost a fraction of NumPy's per-row reduction, and are exactly the same values.
"""

from __future__ import annotations

import math

import numpy as np

from .gemm import LOW_PRECISION

__all__ = ["by_blas", "last_max", "last_sum", "lead_sum", "sum_to"]

_MIN_SIZE = 4096  # below this NumPy's reduction costs less than the product's setup
_HALVING_ROWS = 64  # longest rows on which halving beats NumPy's maximum.reduce
_BLAS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_ONES: dict = {}


def _ones(n: int, dtype) -> np.ndarray:
    ones = _ONES.get((n, dtype))
    if ones is None:
        ones = _ONES[(n, dtype)] = np.ones(n, dtype)
        ones.flags.writeable = False
    return ones


def by_blas(a) -> bool:
    """Whether `a` is summed faster by GEMV: a large C-contiguous float32/float64 array."""
    return (
        type(a) is np.ndarray
        and a.size >= _MIN_SIZE
        and a.dtype in _BLAS_DTYPES
        and a.flags.c_contiguous
    )


def last_sum(xp, a):
    """`a.sum(axis=-1, keepdims=True)`, by GEMV where that is faster (Note [Sums by GEMV])."""
    if not by_blas(a):
        return np.add.reduce(a, axis=-1, keepdims=True)  # without sum's Python wrapper
    n = a.shape[-1]
    return (a.reshape(-1, n) @ _ones(n, a.dtype)).reshape(a.shape[:-1] + (1,))


def lead_sum(xp, a, lead: int):
    """`a` summed over its first `lead` axes (dropped), by GEMV where that is faster."""
    if not by_blas(a) or lead == a.ndim:
        return a.sum(axis=tuple(range(lead)) if lead > 1 else 0)
    rows = math.prod(a.shape[:lead])
    return (_ones(rows, a.dtype) @ a.reshape(rows, -1)).reshape(a.shape[lead:])


def last_max(xp, a):
    """`a.max(axis=-1, keepdims=True)`, by halving on short rows (Note [Sums by GEMV])."""
    n = a.shape[-1] if a.ndim else 0
    if type(a) is not np.ndarray or a.size < _MIN_SIZE or not 1 < n <= _HALVING_ROWS:
        return np.maximum.reduce(a, axis=-1, keepdims=True)
    while n > 1:
        half = n // 2
        top = xp.maximum(a[..., :half], a[..., half : 2 * half])
        if n % 2:  # the odd column joins the first
            xp.maximum(top[..., :1], a[..., 2 * half :], out=top[..., :1])
        a, n = top, half
    return a


def sum_to(xp, x, size):
    """Sum `x` down to the broadcastable `size` (leading dims, then size-1 dims)."""
    if x.dtype in LOW_PRECISION:  # in float32, rounded once: See Note [Low-precision products]
        return sum_to(xp, x.astype(np.float32), size).astype(x.dtype)
    lead = x.ndim - len(size)
    inner = tuple(lead + i for i, s in enumerate(size) if s == 1 and x.shape[lead + i] != 1)
    if inner:
        x = x.sum(axis=inner, keepdims=True)
    if lead:  # the leading dims go away: no keepdims, no reshape
        x = lead_sum(xp, x, lead)  # See Note [Sums by GEMV]
    return x
