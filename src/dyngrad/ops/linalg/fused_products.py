"""The fused add* products: addmm (linear's node), addmv, addr, baddbmm, addbmm."""

from __future__ import annotations

import numpy as np

from ..arrays import gemm
from ..elementwise.complex_numbers import conjugate
from ..shape.reshaping import expand
from ..table.array_backward import ArrayBackward
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .products import _mm, _mm_shapes

__all__ = ["ADDMM", "addmm", "addmm_forward"]


@gemm.rounds_once  # float16/bfloat16: the bias added before the one rounding
def addmm_forward(xp, x, mat1, mat2, *, beta, alpha):
    """beta * x + alpha * (mat1 @ mat2) on arrays: the product in BLAS's fastest form, x added
    into it in place when nothing is promoted (linear's forward, Note [GEMM orientation])."""
    if mat1.shape[0] == 1:  # one row: BLAS's matrix-vector product, which matmul does not call
        product = xp.dot(mat2.T, mat1[0]).reshape(1, -1)
    else:
        product = gemm.mm(xp, mat1, mat2)
    if alpha == 1 and beta == 1 and product.dtype == x.dtype and x.ndim <= 2:
        product += x  # x broadcasts to the product's shape (addmm checked it)
        return product
    return _scaled_sum(x, product, beta, alpha)


# Note [Linear's weight gradient]
# `linear` is addmm(bias, x, weight.t()), so the gradient for mat2 = weight.t() flows through
# TBackward0 into the weight. Computed as (g.T @ mat1).T, the array TBackward0 hands on is the
# product itself, C-ordered in the weight's shape, which AccumulateGrad adopts as `.grad`
# without a copy (see linear.py's TBackward0). Computed as mat1.T @ g it would reach the weight
# as a transposed view, copied on every backward. So the kernel turns the product whenever
# mat2 is transposed in memory, or unknown (not saved: mat1 needs no gradient), which is the
# linear case; a mat2 saved in C order gets its gradient in C order.
def _addmm_kernel(xp, needs, g, mat1, mat2, beta, alpha):
    ga = g if alpha == 1 else g * alpha
    grad_mat2 = None
    if needs[2]:
        if mat2 is not None and mat2.flags.c_contiguous and not mat2.flags.f_contiguous:
            grad_mat2 = mat1.T @ ga
        else:
            grad_mat2 = (ga.T @ mat1).T
    return (
        (g if beta == 1 else g * beta) if needs[0] else None,
        gemm.mm(xp, ga, mat2.T) if needs[1] else None,
        grad_mat2,
    )


def _scaled(t, factor):
    # PyTorch's maybe_multiply: a factor of 1 adds no op (nor node under create_graph)
    return t if factor == 1 else t * factor


ADDMM = defop(
    "addmm",
    addmm_forward,
    {
        "x": lambda g, beta: _scaled(g, conjugate(beta)),
        "mat1": lambda g, mat2, alpha: _scaled(_mm(g, conjugate(mat2.t())), conjugate(alpha)),
        "mat2": lambda g, mat1, alpha: _scaled(_mm(conjugate(mat1.t()), g), conjugate(alpha)),
    },
    array_backward=ArrayBackward(_addmm_kernel),
)
ADDMM.node_class()._layouts = ("mat1", "mat2")  # PyTorch's `_saved_mat1_sym_sizes`, ... (nodes.py)
ADDMV = defop(
    "addmv",
    gemm.rounds_once(
        lambda xp, x, mat, vec, *, beta, alpha: _scaled_sum(x, mat @ vec, beta, alpha)
    ),
    {
        "x": lambda g, beta: g * conjugate(beta),
        "mat": lambda g, vec, alpha: g.unsqueeze(1) * conjugate(vec * alpha),
        "vec": lambda g, mat, alpha: conjugate(mat.t()).mv(g) * conjugate(alpha),
    },
)
ADDR = defop(
    "addr",
    # element by element in the operands' dtype, alpha applied to vec1 first, as PyTorch's
    # kernel: (alpha * vec1) * vec2, each step rounded (float16 and bfloat16 included)
    lambda xp, x, vec1, vec2, *, beta, alpha: _scaled_sum(
        x, xp.multiply.outer(vec1 * alpha if alpha != 1 else vec1, vec2), beta, 1
    ),
    {
        "x": lambda g, beta: g * conjugate(beta),
        "vec1": lambda g, vec2, alpha: g.mv(conjugate(vec2)) * conjugate(alpha),
        "vec2": lambda g, vec1, alpha: g.t().mv(conjugate(vec1)) * conjugate(alpha),
    },
)
BADDBMM = defop(
    "baddbmm",
    gemm.rounds_once(
        lambda xp, x, batch1, batch2, *, beta, alpha: _scaled_sum(x, batch1 @ batch2, beta, alpha)
    ),
    {
        "x": lambda g, beta: g * conjugate(beta),
        "batch1": lambda g, batch2, alpha: g.bmm(conjugate(batch2.mT)) * conjugate(alpha),
        "batch2": lambda g, batch1, alpha: conjugate(batch1.mT).bmm(g) * conjugate(alpha),
    },
)
ADDBMM = defop(
    "addbmm",
    lambda xp, x, batch1, batch2, *, beta, alpha: _addbmm_fwd(xp, x, batch1, batch2, beta, alpha),
    {
        "x": lambda g, beta: g * conjugate(beta),
        "batch1": lambda g, batch2, alpha: (
            g.unsqueeze(0).matmul(conjugate(batch2.transpose(1, 2))) * conjugate(alpha)
        ),
        "batch2": lambda g, batch1, alpha: (
            conjugate(batch1.transpose(1, 2)).matmul(g.unsqueeze(0)) * conjugate(alpha)
        ),
    },
)


_addmm_once = gemm.rounds_once(lambda xp, x, a, b, beta, alpha: _scaled_sum(x, a @ b, beta, alpha))


def _addbmm_fwd(xp, x, batch1, batch2, beta, alpha):
    if batch1.dtype not in gemm.LOW_PRECISION or not len(batch1):
        return _scaled_sum(x, (batch1 @ batch2).sum(0), beta, alpha)
    # PyTorch adds one batch at a time (an addmm each, each rounded once): so does this
    out = _addmm_once(xp, x, batch1[0], batch2[0], beta, alpha)
    for a, b in zip(batch1[1:], batch2[1:]):
        out = _addmm_once(xp, out, a, b, 1, alpha)
    return out


def _scaled_sum(x, product, beta, alpha):
    # beta == 0 ignores x entirely (its NaN and inf do not propagate), as in PyTorch
    product = product * alpha if alpha != 1 else product
    if beta == 0:
        return np.broadcast_to(np.zeros((), product.dtype), product.shape) + product
    return (x * beta if beta != 1 else x) + product


def _fused(op, name, input, a, b, shape, beta, alpha):
    expand(input, shape)  # PyTorch's message when `input` does not broadcast to the product
    return apply(op, (input, a, b), {"beta": beta, "alpha": alpha})


def _need(t, ndim, what):
    if t._data.ndim != ndim:
        raise RuntimeError(
            f"{what} must be a {'matrix' if ndim == 2 else f'{ndim}D tensor'}, "
            f"got {t._data.ndim}-D tensor"
        )


@public
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """Matches `torch.addmm`: beta * input + alpha * (mat1 @ mat2)."""
    _need(mat1, 2, "mat1")
    _need(mat2, 2, "mat2")
    a, b = mat1._data.shape, mat2._data.shape
    if a[1] != b[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_mm_shapes(a, b)})")
    for first, name in ((input, "self"), (mat1, "mat1")):
        if first._data.dtype != mat2._data.dtype:
            raise RuntimeError(
                f"{name} and mat2 must have the same dtype, but got "
                f"{first.dtype._legacy} and {mat2.dtype._legacy}"
            )
    return _fused(ADDMM, "addmm", input, mat1, mat2, (a[0], b[1]), beta, alpha)


@public
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """Matches `torch.addmv`: beta * input + alpha * (mat @ vec)."""
    a, b = mat._data.shape, vec._data.shape
    if len(a) != 2 or len(b) != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {input._data.ndim}, {len(a)}, {len(b)}"
        )
    if a[1] != b[0]:
        raise RuntimeError(f"size mismatch, got input ({a[0]}), mat ({a[0]}x{a[1]}), vec ({b[0]})")
    return _fused(ADDMV, "addmv", input, mat, vec, (a[0],), beta, alpha)


@public
def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """Matches `torch.addr`: beta * input + alpha * outer(vec1, vec2)."""
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v._data.ndim}-D")
    shape = (vec1._data.shape[0], vec2._data.shape[0])
    return _fused(ADDR, "addr", input, vec1, vec2, shape, beta, alpha)


def _batches(batch1, batch2):
    _need(batch1, 3, "batch1")
    _need(batch2, 3, "batch2")
    a, b = batch1._data.shape, batch2._data.shape
    if b[:2] != (a[0], a[2]):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a[0]}, {a[2]}] but got: [{b[0]}, {b[1]}]."
        )
    return a, b


@public
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """Matches `torch.baddbmm`: beta * input + alpha * (batch1 @ batch2)."""
    a, b = _batches(batch1, batch2)
    return _fused(BADDBMM, "baddbmm", input, batch1, batch2, (a[0], a[1], b[2]), beta, alpha)


@public
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """Matches `torch.addbmm`: beta * input + alpha * sum_b(batch1[b] @ batch2[b])."""
    a, b = _batches(batch1, batch2)
    return _fused(ADDBMM, "addbmm", input, batch1, batch2, (a[1], b[2]), beta, alpha)
