"""softmax and log_softmax along a dim, computed stably (the max is subtracted first).

Each has its own formula rather than being composed of exp/sum/div: one node, as in PyTorch,
and no overflow for large inputs.
"""

from __future__ import annotations

import numpy as np

from ..arrays.axis_sums import last_max, last_sum
from ..shape.reshaping import wrap_dim
from ..table.argument_errors import REQUIRED
from ..table.array_backward import ArrayBackward
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public


def _shifted(xp, x, dim):
    """(x - max(x), None) when every max is finite, else (x - the finite maxima, the maxima).

    An infinite max is left out so that -inf rows give NaN as in PyTorch. Array methods, not
    xp.amax/xp.where: NumPy's Python-level wrappers cost more than the work on small arrays.
    """
    m = last_max(xp, x) if dim == x.ndim - 1 else x.max(axis=dim, keepdims=True)
    if xp.isfinite(m).all():
        return x - m, None
    return x - xp.where(xp.isfinite(m), m, 0).astype(x.dtype, copy=False), m


def _softmax_fwd(xp, x, *, dim):
    return _softmax(xp, x, dim, safe=False)


def _safe_softmax_fwd(xp, x, *, dim):
    # PyTorch's _safe_softmax (attention's): a row whose every score is -inf gives zeros, not
    # softmax's NaN; such a row is one whose max is -inf, so the common case costs nothing more
    return _softmax(xp, x, dim, safe=True)


# With every max finite, exp(x - max) lies in (0, 1] and each row sums to at least 1: nothing
# can warn, so errstate (a microsecond a call) is entered only for rows with inf or nan.
def _softmax(xp, x, dim, safe: bool):
    if x.ndim == 0 or x.size == 0:
        return xp.exp(x - x) if x.size else x.copy()
    e, m = _shifted(xp, x, dim)
    if m is None:
        return _normalize(xp, e, dim)
    with np.errstate(invalid="ignore"):
        out = _normalize(xp, e, dim)
    return xp.where(xp.isneginf(m), 0, out).astype(out.dtype, copy=False) if safe else out


def _normalize(xp, e, dim):
    xp.exp(e, out=e)
    e /= _sum(xp, e, dim)
    return e


def _sum(xp, a, dim):
    # along the last dim (attention rows, class scores) by GEMV: See Note [Sums by GEMV]
    return last_sum(xp, a) if dim == a.ndim - 1 else a.sum(axis=dim, keepdims=True)


def _log_softmax_fwd(xp, x, *, dim):
    if x.ndim == 0 or x.size == 0:
        return x - x
    z, m = _shifted(xp, x, dim)
    if m is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            return z - xp.log(xp.exp(z).sum(axis=dim, keepdims=True))
    z -= xp.log(_sum(xp, xp.exp(z), dim))
    return z


def _softmax_backward_fwd(xp, grad, y, *, dim):
    # d softmax: y * (grad - sum(grad * y))
    dx = grad - _sum(xp, grad * y, dim)
    dx *= y
    return dx


def _log_softmax_backward_fwd(xp, grad, y, *, dim):
    # d log_softmax: grad - exp(y) * sum(grad)
    return grad - xp.exp(y) * _sum(xp, grad, dim)


# The backward maps are rows of their own, as PyTorch's _softmax_backward_data: one node and
# one pass over the arrays. Both are linear in `grad`; their derivatives in y (the forward's
# output) carry double backward.
SOFTMAX_BACKWARD = defop(
    "softmax_backward_data",
    _softmax_backward_fwd,
    {
        "grad": lambda g, y, dim: softmax_backward(g, y, dim),
        "y": lambda g, grad, y, dim: (
            g * (grad - (grad * y).sum(dim, keepdim=True)) - grad * (g * y).sum(dim, keepdim=True)
        ),
    },
    node="SoftmaxBackwardDataBackward0",
)
LOG_SOFTMAX_BACKWARD = defop(
    "log_softmax_backward_data",
    _log_softmax_backward_fwd,
    {
        "grad": lambda g, y, dim: g - (g * y.exp()).sum(dim, keepdim=True),
        "y": lambda g, grad, y, dim: -(g * y.exp()) * grad.sum(dim, keepdim=True),
    },
    node="LogSoftmaxBackwardDataBackward0",
)


def softmax_backward(grad, y, dim):
    return apply(SOFTMAX_BACKWARD, (grad, y), {"dim": dim})


def _softmax_row(name: str, fwd, node: str | None = None):
    return defop(
        name,
        fwd,
        {"x": lambda g, out, dim: softmax_backward(g, out, dim)},
        array_backward=ArrayBackward(
            lambda xp, needs, g, out, dim: (_softmax_backward_fwd(xp, g, out, dim=dim),)
        ),
        node=node,
    )


SOFTMAX = _softmax_row("softmax", _softmax_fwd)
# its zero rows give zero gradients by softmax's own backward: y (g - sum(g y)) with y = 0
SAFE_SOFTMAX = _softmax_row("safe_softmax", _safe_softmax_fwd, "SafeSoftmaxBackward0")
LOG_SOFTMAX = defop(
    "log_softmax",
    _log_softmax_fwd,
    {"x": lambda g, out, dim: apply(LOG_SOFTMAX_BACKWARD, (g, out), {"dim": dim})},
    array_backward=ArrayBackward(
        lambda xp, needs, g, out, dim: (_log_softmax_backward_fwd(xp, g, out, dim=dim),)
    ),
)


def _prepare(name, input, dim, dtype):
    if dtype is not None:
        input = input.to(dtype)
    if not input.is_floating_point() and input._data.size:  # an empty tensor needs no kernel
        d = wrap_dim(dim, input._data.ndim)
        kernel = "lastdim_kernel_impl" if d == max(input._data.ndim, 1) - 1 else "kernel_impl"
        raise NotImplementedError(
            f"\"{name}_{kernel}\" not implemented for '{input.dtype._legacy}'"
        )
    return input, wrap_dim(dim, input._data.ndim)


@public
def softmax(input, dim=REQUIRED, dtype=None):
    """Matches `torch.softmax`: exp(x) / sum(exp(x)) along `dim`, without overflow."""
    input, d = _prepare("softmax", input, dim, dtype)
    return apply(SOFTMAX, (input,), {"dim": d})


@public
def log_softmax(input, dim=REQUIRED, dtype=None):
    """Matches `torch.log_softmax`: x - logsumexp(x) along `dim`."""
    input, d = _prepare("log_softmax", input, dim, dtype)
    return apply(LOG_SOFTMAX, (input,), {"dim": d})
