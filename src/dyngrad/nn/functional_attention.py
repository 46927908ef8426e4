"""Attention as functions: `scaled_dot_product_attention` and the multi-head forward."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._tensor import Tensor
from ..backends.cuda import _sdp
from ..ops.nn.attention import flash_attention
from ..ops.nn.linear import linear
from ..ops.reduction.softmax import SAFE_SOFTMAX, softmax
from ..ops.shape.joining import cat
from ..ops.table.record import apply, autocast_entry, replayable
from .functional_dropout import dropout
from .functional_pad import pad


def _float_mask(mask, dtype, allowed_when_true: bool):
    """A boolean mask as an additive float mask (-inf where attention is not allowed)."""
    if mask is None or mask._data.dtype != np.bool_:
        return mask
    return _additive(mask, dtype, allowed_when_true)


# (no gradient flows into a mask: these are builders a replay calls again on its data, See
# Note [Replayable sources])
@replayable
def _additive(mask, dtype, allowed_when_true: bool):
    blocked = ~mask._data if allowed_when_true else mask._data
    return Tensor._wrap(np.where(blocked, -np.inf, 0.0).astype(dtype.np))


@replayable
def _causal_mask(length: int, source: int, dtype):
    """The additive mask letting query i see keys 0..i (top-left aligned)."""
    causal = np.tril(np.ones((length, source), dtype=bool))
    return _float_mask(Tensor._wrap(causal), dtype, True)


def none_or_dtype(input):
    """The dtype of a mask, or None (PyTorch's `F._none_or_dtype`)."""
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool or float mask as a float one (-inf where True), as PyTorch's `F._canonical_mask`."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype.name != "bool" and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} "
            "is deprecated. Use same type for both instead.",
            stacklevel=3,
        )
    return mask if is_float else _float_mask(mask, target_type, False)


def safe_softmax(scores):
    """softmax over the last dim; a row with every score -inf gives zeros (and zero grads),
    as PyTorch's attention does (its `_safe_softmax`), instead of 0/0."""
    return apply(SAFE_SOFTMAX, (scores,), {"dim": scores.dim() - 1})


def _repeat_heads(x, repeat: int):
    # repeat_interleave along the head dim (-3): each key/value head serves `repeat` queries
    shape = tuple(x.shape)
    expanded = x.unsqueeze(-3).expand(*shape[:-2], repeat, *shape[-2:])
    return expanded.reshape(*shape[:-3], shape[-3] * repeat, *shape[-2:])


def _flash_repeat(query, key, value, attn_mask, dropout_p, enable_gqa) -> int:
    """How many query heads share a key/value head when PyTorch's CPU flash kernel takes
    the call (See Note [Flash attention on CPU]), else 0: the math form runs."""
    tensors = (query, key, value)
    if dropout_p > 0.0 or any(t._data.ndim != 4 for t in tensors):
        return 0
    (batch, heads, length, size), (kb, kh, source, ks) = query.shape, key.shape
    vb, vh, vs, vd = value.shape
    if not (size == ks == vd and batch == kb == vb and source == vs and length and source):
        return 0
    if any(t.dtype is not query.dtype or t._data.strides[-1] != t._data.itemsize for t in tensors):
        return 0
    if query._data.dtype.kind != "f" and query.dtype.name != "bfloat16":
        return 0
    if kh != vh or heads % kh or (heads != kh and not enable_gqa):
        return 0
    if attn_mask is not None:
        if attn_mask.requires_grad or attn_mask.dtype.name not in ("bool", query.dtype.name):
            return 0
        try:
            np.broadcast_shapes(attn_mask.shape, (batch, heads, length, source))
        except ValueError:
            return 0
    return heads // kh


@autocast_entry("scaled_dot_product_attention")  # See Note [Autocast policy]
def scaled_dot_product_attention(
    query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False
):
    """Matches `torch.nn.functional.scaled_dot_product_attention`: PyTorch's CPU choice of
    its fused flash kernel or the math form (See Note [Flash attention on CPU]).

    A boolean `attn_mask` marks the positions that may be attended (True = keep).
    """
    length, source = query.shape[-2], key.shape[-2]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    repeat = _flash_repeat(query, key, value, attn_mask, dropout_p, enable_gqa)
    if repeat and _sdp["flash"]:
        # the flash kernel takes a mask and the causal hint together (their intersection)
        return flash_attention(query, key, value, attn_mask, scale, is_causal, repeat)
    if is_causal and attn_mask is not None:  # only the math form refuses both
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    if not _sdp["math"]:
        raise RuntimeError(
            "No viable backend for scaled_dot_product_attention was found. This is likely due "
            "to turning off both the math kernel and the fused kernels."
        )
    if enable_gqa and key.dim() > 2 and key.shape[-3] != query.shape[-3]:
        repeat = query.shape[-3] // key.shape[-3]
        key, value = _repeat_heads(key, repeat), _repeat_heads(value, repeat)
    scores = query.matmul(key.transpose(-2, -1)) * scale
    if is_causal:
        scores = scores + _causal_mask(length, source, query.dtype)
    if attn_mask is not None:
        scores = scores + _float_mask(attn_mask, query.dtype, True)
    weights = safe_softmax(scores)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return weights.matmul(value)


def _check_mha_dims(query, key, value, key_padding_mask, attn_mask, num_heads) -> None:
    """PyTorch's checks of the inputs' dims: a batched (3-D) or unbatched (2-D) query."""
    if query.dim() not in (2, 3):
        raise AssertionError(
            "query should be unbatched 2D or batched 3D tensor but received "
            f"{query.dim()}-D query tensor"
        )
    form = "batched (3-D)" if query.dim() == 3 else "unbatched (2-D)"
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(
            f"For {form} `query`, expected `key` and `value` to be {query.dim()}-D but found "
            f"{key.dim()}-D and {value.dim()}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.dim() != query.dim() - 1:
        raise AssertionError(
            f"For {form} `query`, expected `key_padding_mask` to be `None` or "
            f"{query.dim() - 1}-D but found {key_padding_mask.dim()}-D tensor instead"
        )
    if attn_mask is None:
        return
    if attn_mask.dim() not in (2, 3):
        raise AssertionError(
            f"For {form} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
            f"{attn_mask.dim()}-D tensor instead"
        )
    if query.dim() == 2 and attn_mask.dim() == 3:
        expected = (num_heads, query.shape[0], key.shape[0])
        if tuple(attn_mask.shape) != expected:
            raise AssertionError(
                f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}"
            )


def _check_attn_mask_shape(attn_mask, length, source, batch_heads) -> None:
    # a 2-D mask is shared by every batch element and head; a 3-D one has one per pair
    want = (length, source) if attn_mask.dim() == 2 else (batch_heads, length, source)
    if tuple(attn_mask.shape) != want:
        raise RuntimeError(
            f"The shape of the {attn_mask.dim()}D attn_mask is {attn_mask.shape}, but should be "
            f"{want}.\nattn_mask is (target length, source length), or (batch * num_heads, "
            "target length, source length) for one mask per batch element and head."
        )


def _project(query, key, value, in_proj_weight, in_proj_bias, separate):
    weights = separate if separate is not None else in_proj_weight.chunk(3)
    biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
    if separate is None and key is query and value is query:
        # self-attention: one projection, split in three
        return linear(query, in_proj_weight, in_proj_bias).chunk(3, -1)
    return tuple(linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def _append_bias_kv(k, v, bias_k, bias_v, attn_mask, key_padding_mask, batch):
    k = cat([k, bias_k.expand(1, batch, bias_k.shape[-1])])
    v = cat([v, bias_v.expand(1, batch, bias_v.shape[-1])])
    if attn_mask is not None:
        attn_mask = pad(attn_mask, (0, 1))
    if key_padding_mask is not None:
        key_padding_mask = pad(key_padding_mask, (0, 1))
    return k, v, attn_mask, key_padding_mask


def _merged_mask(attn_mask, key_padding_mask, dtype, batch, heads, length, source):
    """attn_mask and key_padding_mask as one additive (batch*heads, L, S) mask, or None."""
    attn_mask = _float_mask(attn_mask, dtype, False)
    key_padding_mask = _float_mask(key_padding_mask, dtype, False)
    if attn_mask is not None and attn_mask.dim() == 2:
        attn_mask = attn_mask.unsqueeze(0)
    if key_padding_mask is not None:
        kpm = key_padding_mask.view(batch, 1, 1, source).expand(batch, heads, 1, source)
        kpm = kpm.reshape(batch * heads, 1, source)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    return attn_mask


def multi_head_attention_forward(
    query,
    key,
    value,
    embed_dim_to_check,
    num_heads,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn,
    dropout_p,
    out_proj_weight,
    out_proj_bias,
    training=True,
    key_padding_mask=None,
    need_weights=True,
    attn_mask=None,
    use_separate_proj_weight=False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights=True,
    is_causal=False,
):
    """Matches `torch.nn.functional.multi_head_attention_forward` for (L, N, E) inputs."""
    _check_mha_dims(query, key, value, key_padding_mask, attn_mask, num_heads)
    unbatched = query.dim() == 2
    if unbatched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    length, batch, embed_dim = query.shape
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the "
            "Transformer module method `generate_square_subsequent_mask` to "
            "create this mask."
        )
    # PyTorch trusts the hint here: SDPA's causal mask replaces attn_mask
    causal_hint = is_causal and key_padding_mask is None and not need_weights
    if causal_hint:
        attn_mask = None
    if attn_mask is not None:
        _check_attn_mask_shape(attn_mask, length, key.shape[0], batch * num_heads)
    head_dim = embed_dim // num_heads
    separate = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight else None
    q, k, v = _project(query, key, value, in_proj_weight, in_proj_bias, separate)
    if bias_k is not None and bias_v is not None:
        k, v, attn_mask, key_padding_mask = _append_bias_kv(
            k, v, bias_k, bias_v, attn_mask, key_padding_mask, batch
        )
    q = q.reshape(length, batch * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], batch * num_heads, head_dim).transpose(0, 1)
    v = v.reshape(v.shape[0], batch * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        k, v = pad(k, (0, 0, 0, 1)), pad(v, (0, 0, 0, 1))
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    source = k.shape[1]
    if key_padding_mask is not None:
        for i, want in enumerate((batch, source)):
            if key_padding_mask.shape[i] != want:
                raise AssertionError(
                    f"Expected key_padded_mask.shape[{i}] to be {want}, but got "
                    f"{key_padding_mask.shape[i]}\n"
                    "key_padding_mask is (batch, source length): True marks a key to ignore."
                )
    if causal_hint:
        attn_mask = _causal_mask(length, source, query.dtype)
    mask = _merged_mask(attn_mask, key_padding_mask, query.dtype, batch, num_heads, length, source)
    scores = (q * math.sqrt(1.0 / head_dim)).bmm(k.transpose(1, 2))
    if mask is not None:
        scores = scores + mask
    # PyTorch's fast path (need_weights=False) gives fully masked rows zeros, not nan
    weights = softmax(scores, -1) if need_weights else safe_softmax(scores)
    if dropout_p > 0.0 and training:
        weights = dropout(weights, dropout_p, True)
    out = weights.bmm(v).transpose(0, 1).reshape(length * batch, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).view(length, batch, -1)
    if unbatched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    weights = weights.view(batch, num_heads, length, source)
    if average_attn_weights:
        weights = weights.mean(1)
    return out, weights.squeeze(0) if unbatched else weights
