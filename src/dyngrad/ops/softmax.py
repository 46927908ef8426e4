"""softmax and log_softmax along a dim, computed stably (the max is subtracted first).

Each has its own formula rather than being composed of exp/sum/div: one node, as in PyTorch,
and no overflow for large inputs.
"""

from __future__ import annotations

import numpy as np

from .registry import apply, defop
from .shape import wrap_dim
from .surface import public


def _shifted(xp, x, dim):
    # x - max(x); an infinite max is left out so that -inf rows give NaN as in PyTorch
    m = xp.amax(x, axis=dim, keepdims=True)
    return x - xp.where(xp.isfinite(m), m, 0).astype(x.dtype, copy=False)


def _softmax_fwd(xp, x, *, dim):
    if x.ndim == 0 or x.size == 0:
        return xp.exp(x - x) if x.size else x.copy()
    e = xp.exp(_shifted(xp, x, dim))
    with np.errstate(invalid="ignore"):
        return e / xp.sum(e, axis=dim, keepdims=True)


def _log_softmax_fwd(xp, x, *, dim):
    if x.ndim == 0 or x.size == 0:
        return x - x
    z = _shifted(xp, x, dim)
    with np.errstate(divide="ignore", invalid="ignore"):
        return z - xp.log(xp.sum(xp.exp(z), axis=dim, keepdims=True))


SOFTMAX = defop(
    "softmax",
    _softmax_fwd,
    # d softmax: out * (g - sum(g * out))
    {"x": lambda g, out, dim: out * (g - (g * out).sum(dim, keepdim=True))},
)
LOG_SOFTMAX = defop(
    "log_softmax",
    _log_softmax_fwd,
    # d log_softmax: g - softmax * sum(g)
    {"x": lambda g, out, dim: g - out.exp() * g.sum(dim, keepdim=True)},
)


def _prepare(name, input, dim, dtype):
    if dtype is not None:
        input = input.to(dtype)
    if not input.is_floating_point():
        d = wrap_dim(dim, input._data.ndim)
        kernel = "lastdim_kernel_impl" if d == input._data.ndim - 1 else "kernel_impl"
        raise NotImplementedError(
            f"\"{name}_{kernel}\" not implemented for '{input.dtype._legacy}'"
        )
    return input, wrap_dim(dim, input._data.ndim)


@public
def softmax(input, dim, dtype=None):
    """Matches `torch.softmax`: exp(x) / sum(exp(x)) along `dim`, without overflow."""
    input, d = _prepare("softmax", input, dim, dtype)
    return apply(SOFTMAX, (input,), {"dim": d})


@public
def log_softmax(input, dim, dtype=None):
    """Matches `torch.log_softmax`: x - logsumexp(x) along `dim`."""
    input, d = _prepare("log_softmax", input, dim, dtype)
    return apply(LOG_SOFTMAX, (input,), {"dim": d})
