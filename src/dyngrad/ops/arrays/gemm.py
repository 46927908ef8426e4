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

# Note [Low-precision products]
# PyTorch's CPU products of float16 or bfloat16 operands return that dtype, computed as float32
# (each product and the running sum) and rounded once at the end, the fused add of addmm and
# linear included. NumPy would give float32 for bfloat16 (ml_dtypes' matmul) and would round
# twice in a fused add (the product, then the sum). So products widen such operands to
# float32, run BLAS, and round the result once: `rounds_once` wraps a product's forward,
# `mm` does it inline (it is the hottest). A matrix times a vector in float16 follows
# PyTorch's order, the products in float32 summed pairwise (`matvec`; NumPy's half dot sums
# in sequence). Sums (sum, mean, and the reduction of a gradient to its input's shape)
# likewise accumulate in float32 and round once, as PyTorch's reductions do. addr and addbmm
# round as PyTorch's kernels do: addr at each elementwise step, addbmm once per batch.
"""

from __future__ import annotations

import numpy as np

from ...runtime.dtypes import LOW_PRECISION
from ..table.opmath import in_float32

__all__ = ["mm", "matvec", "rounds_once", "LOW_PRECISION"]

_F32_TYPE = np.float32


_F16 = np.dtype(np.float16)


def matvec(xp, x, y):
    """`x @ y` for a vector `y` (mv, dot, a batch times a vector), float16 in PyTorch's order:
    See Note [Low-precision products]."""
    if x.dtype == _F16:
        product = x.astype(_F32_TYPE) * y.astype(_F32_TYPE)
        return product.sum(axis=-1, dtype=_F32_TYPE).astype(_F16)
    if x.dtype in LOW_PRECISION:
        return matvec(xp, x.astype(_F32_TYPE), y.astype(_F32_TYPE)).astype(x.dtype)
    return xp.dot(x, y) if x.ndim <= 2 else xp.matmul(x, y)


def rounds_once(fwd):
    """`fwd` (a product's forward) with float16/bfloat16 arrays computed in float32 and the
    result rounded once to their dtype. See Note [Low-precision products]; the wrapper is
    the op table's (Note [Reduced-precision opmath])."""
    return in_float32(fwd)


_F32 = np.dtype(np.float32)
_ROWS = range(16, 33)
_MIN_SIDE = 128


def mm(xp, x, mat2):
    """`x @ mat2` for 2-D arrays, the transposed product where BLAS runs that faster (mm's row
    forward itself, hence the table's signature: PyTorch's names, `_saved_mat2`)."""
    a, b = x, mat2
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
    if a.dtype in LOW_PRECISION:  # See Note [Low-precision products]
        return (a.astype(_F32_TYPE) @ b.astype(_F32_TYPE)).astype(a.dtype)
    return a @ b
