"""The stride-1 convolution paths of im2col.py (channel-major col2im) against torch."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad


def _grads(t, x, w, conv, cotangent):
    x = t.from_numpy(x.copy()).requires_grad_(True)
    w = t.from_numpy(w.copy()).requires_grad_(True)
    out = conv(t, x, w)
    out.backward(t.from_numpy(cotangent))
    return out.detach().numpy(), x.grad.numpy(), w.grad.numpy()


def _compare(torch, x, w, conv, rtol=1e-10, atol=1e-12):
    shape = tuple(conv(torch, torch.from_numpy(x), torch.from_numpy(w)).shape)
    cotangent = np.random.default_rng(1).standard_normal(shape).astype(x.dtype)
    theirs = _grads(torch, x, w, conv, cotangent)
    ours = _grads(dyngrad, x, w, conv, cotangent)
    for d, t in zip(ours, theirs):
        np.testing.assert_allclose(d, t, rtol=rtol, atol=atol)


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize(
    "nd, padding, dilation, groups",
    [
        (1, 2, 1, 1),
        (1, 0, 3, 2),
        (2, 0, 1, 1),
        (2, (2, 0), (1, 2), 3),
        (2, "same", 1, 1),  # an even kernel: 'same' pads one side more
        (3, 1, (1, 2, 1), 1),
    ],
)
def test_stride1_input_grad_matches_torch(torch, nd, padding, dilation, groups):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 6) + (7, 6, 5)[:nd])
    w = rng.standard_normal((6, 6 // groups) + (2, 3, 2)[:nd])
    name = f"conv{nd}d"

    def conv(t, x, w):
        return getattr(t.nn.functional, name)(x, w, None, 1, padding, dilation, groups)

    _compare(torch, x, w, conv)


def test_stride1_input_grad_float32_batch_one(torch):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 16, 14, 14)).astype(np.float32)
    w = rng.standard_normal((32, 16, 3, 3)).astype(np.float32)

    def conv(t, x, w):
        return t.nn.functional.conv2d(x, w, padding=1)

    _compare(torch, x, w, conv, rtol=1e-4, atol=1e-4)


def test_stride1_conv_transpose_matches_torch(torch):
    # conv_transpose runs the same col2im as its forward
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 5, 3))
    w = rng.standard_normal((4, 3, 3, 2))

    def conv(t, x, w):
        return t.nn.functional.conv_transpose2d(x, w, None, 1, (1, 0), 0, 2, (2, 1))

    _compare(torch, x, w, conv)


def test_stride1_input_grad_gradgradcheck():
    rng = np.random.default_rng(4)
    x = dyngrad.from_numpy(rng.standard_normal((2, 2, 4, 3))).requires_grad_(True)
    w = dyngrad.from_numpy(rng.standard_normal((4, 1, 2, 2))).requires_grad_(True)

    def conv(x, w):
        return dyngrad.nn.functional.conv2d(x, w, None, 1, 1, (1, 2), 2)

    assert dyngrad.autograd.gradcheck(conv, (x, w))
    assert dyngrad.autograd.gradgradcheck(conv, (x, w))


def test_stride1_input_grad_is_contiguous():
    # the channel-major col2im hands back a (N, C, ...) array, not a transposed view of one
    x = dyngrad.randn(2, 3, 5, 5, requires_grad=True)
    w = dyngrad.randn(4, 3, 3, 3)
    dyngrad.nn.functional.conv2d(x, w, padding=1).sum().backward()
    assert x.grad.numpy().flags.c_contiguous


@pytest.mark.parametrize("stride", [1, 2])
def test_empty_batch_conv2d_matches_torch(torch, stride):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((0, 4, 5, 5))
    w = rng.standard_normal((6, 2, 3, 3))

    def conv(t, x, w):
        return t.nn.functional.conv2d(x, w, None, stride, 1, 1, 2)

    _compare(torch, x, w, conv)
