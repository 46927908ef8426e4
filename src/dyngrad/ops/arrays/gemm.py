"""2-D matrix products, each computed in the operand order BLAS runs fastest.

# Note [GEMM orientation]
# A product A @ B with B transposed in memory (B = W.T for a C-contiguous W) is the gradient
# g @ W.T of every `x @ W` in a backward (an RNN's h @ w_h runs it at every step) and the
# forward x @ W.T of a linear layer. OpenBLAS computes it for 16-32 rows of float32 at about
# half the speed of the same product transposed, (W @ A.T).T, with one thread or two: measured
# 0.45-0.75x of the time over k, n in 128..784 on AVX2 and AVX-512 kernels. Outside that
# window (fewer or more rows, short sides, float64) the direct order is as fast or faster, so
# only the window is turned. The result is copied back to C order, as PyTorch's `mm` returns
# it; both orders are the same exact products summed in BLAS's own order, as close to the exact
# result as each other (PyTorch's MKL sums in yet another).
"""

from __future__ import annotations

import numpy as np

__all__ = ["mm"]

_F32 = np.dtype(np.float32)
_ROWS = range(16, 33)
_MIN_SIDE = 128


def mm(xp, x, y):
    """`x @ y` for 2-D arrays, the transposed product where BLAS runs that faster (mm's row
    forward itself, hence the table's signature)."""
    a, b = x, y
    if (
        b.shape[-1] >= _MIN_SIDE
        and a.shape[-1] >= _MIN_SIDE
        and a.shape[0] in _ROWS
        and type(a) is np.ndarray
        and a.dtype is _F32
        and b.dtype is _F32
        and a.flags.c_contiguous
        and b.flags.f_contiguous
        and not b.flags.c_contiguous
    ):
        return np.ascontiguousarray((b.T @ a.T).T)
    return a @ b
