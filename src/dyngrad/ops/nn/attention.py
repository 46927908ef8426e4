"""Fused scaled dot-product attention: PyTorch's CPU flash-attention row, one node
(ScaledDotProductFlashAttentionForCpuBackward0) where the math form records half a dozen.

# Note [Flash attention on CPU]
# On CPU, PyTorch's `scaled_dot_product_attention` runs `_scaled_dot_product_flash_attention
# _for_cpu` whenever it can (4-d inputs of one head size, no dropout, a mask that needs no
# gradient; `nn.functional` decides), and the math composite otherwise. The fused row keeps
# the output and each row's logsumexp, and recomputes the probabilities in its backward;
# here the forward keeps the probabilities themselves (Note [Stashed intermediates]: a
# product and an exp over every score saved, for the scores' memory) and the backward gives
# all three input gradients at once. As in PyTorch that backward has no derivative of its
# own: a second backward through it raises. PyTorch's kernel walks the keys in blocks with an
# online softmax, so its values differ from one softmax over each whole row in the last bits
# (~1e-7 relative in float32), as its own math form does; a row whose every key is masked
# gives zeros and zero gradients in both.
"""

from __future__ import annotations

import numpy as np

from ...runtime.dtypes import LOW_PRECISION
from ..table.array_backward import ArrayBackward
from ..table.record import apply
from ..table.registry import NOT_IMPLEMENTED, defop, refused


def _grouped(x, repeat: int):
    # grouped-query attention: key/value head h serves query heads h*repeat .. h*repeat+r-1
    return x if repeat == 1 else np.repeat(x, repeat, axis=-3)


def _ungrouped(grad, repeat: int):
    if repeat == 1:
        return grad
    shape = grad.shape
    return grad.reshape(*shape[:-3], shape[-3] // repeat, repeat, *shape[-2:]).sum(-3)


def _scores(q, k, mask, scale, is_causal, repeat):
    """scale * q k^T with the mask applied: -inf where a key may not be attended."""
    s = np.matmul(q, np.swapaxes(_grouped(k, repeat), -1, -2))
    s *= scale
    if is_causal:  # top-left aligned: query i sees keys 0..i
        length, source = s.shape[-2:]
        s += np.where(np.tri(length, source, dtype=bool), 0.0, -np.inf).astype(s.dtype)
    if mask is not None:
        if mask.dtype == np.bool_:
            s = np.where(mask, s, -np.inf)
        else:
            s = s + mask.astype(s.dtype, copy=False)
    return s


def _wide(arrays):
    # float16/bfloat16 work in float32 (PyTorch's kernel accumulates in float), rounded once
    return [a.astype(np.float32) if a.dtype in LOW_PRECISION else a for a in arrays]


def _softmax_rows(q, k, mask, scale, is_causal, repeat):
    """The attention probabilities (zeros on a row with nothing to attend) and, per row,
    the logsumexp PyTorch's kernel keeps."""
    s = _scores(q, k, mask, scale, is_causal, repeat)
    top = s.max(-1, keepdims=True)
    top[~np.isfinite(top)] = 0.0  # a fully masked row: exp(-inf) = 0 below, not NaN
    s -= top
    np.exp(s, out=s)
    total = s.sum(-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        s /= np.where(total > 0, total, 1.0)
        lse = (top + np.log(total))[..., 0]
    return s, lse


def _flash_fwd(xp, q, k, v, mask, *, scale, is_causal, repeat):
    # the stash is the probabilities: the backward needs them, and recomputing them (a product
    # and an exp over every score) would cost more than the forward's own softmax
    dtype = q.dtype
    q, k, v = _wide((q, k, v))
    p, _ = _softmax_rows(q, k, mask, scale, is_causal, repeat)
    out = np.matmul(p, _grouped(v, repeat))
    return out.astype(dtype, copy=False), p


def _flash_grads(grad, q, k, v, mask, out, p, scale, is_causal, repeat):
    """(dq, dk, dv): dS = P * (dO V^T - rowsum(dO * O)), dQ = scale dS K, dK = scale dS^T Q,
    dV = P^T dO, the grouped heads' gradients summed."""
    dtype = q.dtype
    grad, q, k, v, out = _wide((grad, q, k, v, out))
    if p is None:  # (the backward row of a second backward recomputes what the forward kept)
        p, _ = _softmax_rows(q, k, mask, scale, is_causal, repeat)
    dv = _ungrouped(np.matmul(np.swapaxes(p, -1, -2), grad), repeat)
    dp = np.matmul(grad, np.swapaxes(_grouped(v, repeat), -1, -2))
    dp -= (grad * out).sum(-1, keepdims=True)
    dp *= p
    dq = np.matmul(dp, _grouped(k, repeat))
    dq *= scale
    dk = _ungrouped(np.matmul(np.swapaxes(dp, -1, -2), q), repeat)
    dk *= scale
    return tuple(x.astype(dtype, copy=False) for x in (dq, dk, dv))


def _flash_backward_fwd(xp, grad, q, k, v, mask, output, *, scale, is_causal, repeat):
    return _flash_grads(grad, q, k, v, mask, output, None, scale, is_causal, repeat)


FLASH_ATTENTION_BACKWARD = defop(
    "scaled_dot_product_flash_attention_for_cpu_backward",
    _flash_backward_fwd,
    dict.fromkeys(
        ("grad", "q", "k", "v", "output"),
        refused(
            "derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward is not "
            "implemented"
        ),
    ),
    node=NOT_IMPLEMENTED,
    outputs=3,
)


def _backward_row(i: int):
    def formula(g, q, k, v, mask, out, scale, is_causal, repeat):
        attrs = {"scale": scale, "is_causal": is_causal, "repeat": repeat}
        return apply(FLASH_ATTENTION_BACKWARD, (g, q, k, v, mask, out), attrs)[i]

    return formula


def _array_grads(xp, needs, g, q, k, v, mask, out, scale, is_causal, repeat, stash):
    return (*_flash_grads(g, q, k, v, mask, out, stash, scale, is_causal, repeat), None)


FLASH_ATTENTION = defop(
    "scaled_dot_product_flash_attention_for_cpu",
    _flash_fwd,
    {"q": _backward_row(0), "k": _backward_row(1), "v": _backward_row(2)},
    node="ScaledDotProductFlashAttentionForCpuBackward0",
    array_backward=ArrayBackward(_array_grads),
    stash=True,
)


def flash_attention(query, key, value, attn_mask, scale: float, is_causal: bool, repeat: int):
    """The fused row (See Note [Flash attention on CPU]); the caller has checked it applies."""
    attrs = {"scale": float(scale), "is_causal": bool(is_causal), "repeat": int(repeat)}
    return apply(FLASH_ATTENTION, (query, key, value, attn_mask), attrs)
