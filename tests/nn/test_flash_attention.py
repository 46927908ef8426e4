"""scaled_dot_product_attention's kernel choice as PyTorch's on CPU: the fused flash row
(one ScaledDotProductFlashAttentionForCpuBackward0 node) where it applies, the math form
elsewhere; `torch.nn.attention.sdpa_kernel` and the deprecated `backends.cuda.sdp_kernel`."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad

F = dyngrad.nn.functional


def _arrays(shapes, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


B, H, L, S, D = 2, 4, 5, 6, 3
QKV = [(B, H, L, D), (B, H, S, D), (B, H, S, D)]
CASES = {
    "plain": (QKV, {}),
    "causal": (QKV, {"is_causal": True}),
    "bool mask": (QKV, {"attn_mask": "bool"}),
    "float mask": (QKV, {"attn_mask": "float"}),
    "row fully masked": (QKV, {"attn_mask": "masked row"}),
    "scale": (QKV, {"scale": 0.3}),
    "bool mask and causal": (QKV, {"attn_mask": "bool", "is_causal": True}),
    "float mask and causal": (QKV, {"attn_mask": "float", "is_causal": True}),
    "gqa": ([(B, H, L, D), (B, 2, S, D), (B, 2, S, D)], {"enable_gqa": True}),
    "3-d (math)": ([(H, L, D), (H, S, D), (H, S, D)], {}),
    "value head size (math)": ([(B, H, L, D), (B, H, S, D), (B, H, S, 5)], {}),
    "mask needing grad (math)": (QKV, {"attn_mask": "float grad"}),
    "broadcast batch (math)": ([(B, H, L, D), (H, S, D), (H, S, D)], {}),
}


def _mask(lib, kind):
    rng = np.random.default_rng(7)
    if kind == "bool":
        keep = rng.random((L, S)) > 0.3
        keep[:, 0] = True
        return lib.from_numpy(keep)
    if kind == "masked row":
        keep = np.ones((B, 1, L, S), dtype=bool)
        keep[1, 0, 2] = False
        return lib.from_numpy(keep)
    values = lib.from_numpy(rng.standard_normal((L, S)))
    return values.requires_grad_(True) if kind == "float grad" else values


def _run(lib, shapes, kwargs):
    inputs = [lib.from_numpy(a).requires_grad_(True) for a in _arrays(shapes)]
    kwargs = dict(kwargs)
    if "attn_mask" in kwargs:
        kwargs["attn_mask"] = _mask(lib, kwargs["attn_mask"])
    out = (
        F.scaled_dot_product_attention(*inputs, **kwargs)
        if lib is dyngrad
        else (lib.nn.functional.scaled_dot_product_attention(*inputs, **kwargs))
    )
    cotangent = lib.from_numpy(_arrays([tuple(out.shape)], seed=3)[0])
    grads = lib.autograd.grad(out, inputs, cotangent)
    return out.grad_fn.name(), out.detach().numpy(), [g.numpy() for g in grads]


@pytest.mark.parametrize("name", list(CASES))
def test_kernel_choice_values_and_gradients_match_torch(name, torch):
    shapes, kwargs = CASES[name]
    ours = _run(dyngrad, shapes, kwargs)
    theirs = _run(torch, shapes, kwargs)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, atol=1e-12)
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shapes", [[(H, L, D), (H, S, D), (H, S, D)], QKV])
def test_math_form_refuses_a_mask_with_the_causal_hint(shapes, torch):
    # the flash row takes both (their intersection); the math form (3-d here, dropout on 4-d)
    # refuses them together, in both libraries
    dropout = 0.0 if len(shapes[0]) == 3 else 0.5
    for lib in (dyngrad, torch):
        q, k, v = (lib.from_numpy(a) for a in _arrays(shapes))
        mask = lib.from_numpy(np.ones((L, S), dtype=bool))
        with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when"):
            lib.nn.functional.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, is_causal=True, dropout_p=dropout
            )


def test_fully_masked_row_gives_zeros_and_zero_gradients():
    q, k, v = (dyngrad.randn(1, 1, 3, 2, requires_grad=True) for _ in range(3))
    keep = dyngrad.ones(3, 3, dtype=dyngrad.bool)
    keep[1] = False
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    assert out.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert out[0, 0, 1].tolist() == [0.0, 0.0]
    out.sum().backward()
    assert q.grad[0, 0, 1].tolist() == [0.0, 0.0]
    assert not dyngrad.isnan(k.grad).any() and not dyngrad.isnan(v.grad).any()


def test_flash_row_passes_gradcheck():
    q, k, v = (
        dyngrad.randn(1, 2, 3, 4, dtype=dyngrad.float64, requires_grad=True) for _ in range(3)
    )
    assert dyngrad.autograd.gradcheck(
        lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True), (q, k, v)
    )
    kv = dyngrad.randn(1, 1, 3, 4, dtype=dyngrad.float64, requires_grad=True)
    assert dyngrad.autograd.gradcheck(
        lambda a, b: F.scaled_dot_product_attention(a, b, b, enable_gqa=True), (q, kv)
    )


def test_second_backward_through_flash_row_raises_as_torch():
    q = dyngrad.randn(1, 2, 3, 4, requires_grad=True)
    out = F.scaled_dot_product_attention(q, q, q)
    (gq,) = dyngrad.autograd.grad(out.sum(), q, create_graph=True)  # the first order works
    with pytest.raises(RuntimeError, match="derivative for aten::_scaled_dot_product_flash"):
        gq.sum().backward()


def test_low_precision_inputs_stay_in_their_dtype(torch):
    arrays = _arrays(QKV, dtype=np.float32)
    ours = F.scaled_dot_product_attention(*(dyngrad.from_numpy(a).half() for a in arrays))
    theirs = torch.nn.functional.scaled_dot_product_attention(
        *(torch.from_numpy(a).half() for a in arrays)
    )
    assert ours.dtype == dyngrad.float16
    np.testing.assert_allclose(ours.float().numpy(), theirs.float().numpy(), atol=2e-3)


def test_sdpa_kernel_selects_and_restores():
    attention = dyngrad.nn.attention
    q = dyngrad.randn(1, 2, 3, 4, requires_grad=True)
    with attention.sdpa_kernel(attention.SDPBackend.MATH):
        assert not dyngrad.backends.cuda.flash_sdp_enabled()
        assert F.scaled_dot_product_attention(q, q, q).grad_fn.name() == "UnsafeViewBackward0"
    assert dyngrad.backends.cuda.flash_sdp_enabled()
    with attention.sdpa_kernel([attention.SDPBackend.EFFICIENT_ATTENTION]):
        with pytest.raises(RuntimeError, match="^No viable backend for scaled_dot_product"):
            F.scaled_dot_product_attention(q, q, q)
    with pytest.raises(AssertionError, match="must be an instance of SDPBackend"):
        with attention.sdpa_kernel("math"):
            pass
    assert repr(attention.SDPBackend.FLASH_ATTENTION) == "<SDPBackend.FLASH_ATTENTION: 1>"
    with pytest.warns(FutureWarning, match="sdp_kernel\\(\\)` is deprecated"):
        with dyngrad.backends.cuda.sdp_kernel(enable_flash=False):
            assert F.scaled_dot_product_attention(q, q, q).grad_fn.name() != (
                "ScaledDotProductFlashAttentionForCpuBackward0"
            )
    assert dyngrad.backends.cuda.flash_sdp_enabled()


def test_dropout_takes_the_math_form():
    q = dyngrad.randn(1, 2, 3, 4, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    assert out.grad_fn.name() == "UnsafeViewBackward0"
