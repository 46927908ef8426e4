"""Exactness of the fast nn paths: tiled max pooling, im2col convolution, fused rows, vs torch."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import dyngrad


def _pair(torch, arrays):
    """The same arrays as leaf tensors requiring grad, in torch and in dyngrad."""
    theirs = [torch.from_numpy(a.copy()).requires_grad_(a.dtype.kind == "f") for a in arrays]
    ours = [dyngrad.from_numpy(a.copy()).requires_grad_(a.dtype.kind == "f") for a in arrays]
    return theirs, ours


def _check(torch, fn, arrays, rtol=1e-10, atol=1e-12, seed=0):
    """fn(module, *tensors) in both libraries: outputs, then input gradients of one cotangent."""
    theirs, ours = _pair(torch, arrays)
    t_out, d_out = fn(torch, *theirs), fn(dyngrad, *ours)
    t_outs = t_out if isinstance(t_out, tuple) else (t_out,)
    d_outs = d_out if isinstance(d_out, tuple) else (d_out,)
    for t, d in zip(t_outs, d_outs):
        assert d.dtype.name == str(t.dtype).replace("torch.", "")
        np.testing.assert_allclose(d.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)
    cotangent = np.random.default_rng(seed).standard_normal(tuple(t_outs[0].shape))
    cotangent = cotangent.astype(arrays[0].dtype)
    (t_outs[0] * torch.from_numpy(cotangent)).sum().backward()
    (d_outs[0] * dyngrad.from_numpy(cotangent)).sum().backward()
    for t, d in zip(theirs, ours):
        if t.requires_grad:
            np.testing.assert_allclose(d.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=atol)
    return d_outs


# ---- max pooling over non-overlapping windows ----------------------------------------------


@pytest.mark.parametrize(
    "shape, kernel",
    [
        ((2, 3, 8, 8), 2),
        ((2, 3, 9, 7), 2),
        ((1, 2, 6, 6), 3),
        ((2, 6, 9), (2, 3)),
        ((1, 1, 5, 4), 1),
    ],
)
def test_tiled_max_pool_matches_torch_with_ties(torch, shape, kernel):
    # small integers make ties in most windows: the first maximum must take the gradient
    x = np.random.default_rng(1).integers(-1, 2, shape).astype(np.float64)
    _check(torch, lambda t, a: t.nn.functional.max_pool2d(a, kernel, return_indices=True), [x])


def test_tiled_max_pool_relu_zero_ties_float32(torch):
    x = np.maximum(np.random.default_rng(2).standard_normal((4, 3, 6, 6)), 0).astype(np.float32)

    def pool(t, a):
        return t.nn.functional.max_pool2d(a, 2, return_indices=True)

    _check(torch, pool, [x], rtol=1e-6, atol=1e-7)


def test_tiled_max_pool_nan_and_signed_zero(torch):
    nan = float("nan")
    x = np.array(
        [
            [
                [
                    [1.0, nan, -0.0, 0.0],
                    [nan, 2.0, 0.0, -0.0],
                    [nan, 1.0, 3.0, 3.0],
                    [0.0, 4.0, 3.0, 1.0],
                ]
            ]
        ]
    )
    theirs, ours = _pair(torch, [x])
    t_values, t_index = torch.nn.functional.max_pool2d(theirs[0], 2, return_indices=True)
    d_values, d_index = dyngrad.nn.functional.max_pool2d(ours[0], 2, return_indices=True)
    np.testing.assert_array_equal(d_index.numpy(), t_index.numpy())
    np.testing.assert_array_equal(
        np.signbit(d_values.detach().numpy()), np.signbit(t_values.detach().numpy())
    )
    np.testing.assert_array_equal(d_values.detach().numpy(), t_values.detach().numpy())
    t_values.sum().backward()
    d_values.sum().backward()
    np.testing.assert_array_equal(ours[0].grad.numpy(), theirs[0].grad.numpy())


def test_tiled_max_pool_gradients_twice():
    x = dyngrad.from_numpy(np.random.default_rng(3).standard_normal((1, 2, 4, 6)))
    x.requires_grad_(True)

    def pool(a):
        return dyngrad.nn.functional.max_pool2d(a, 2)

    assert dyngrad.autograd.gradcheck(pool, (x,))
    assert dyngrad.autograd.gradgradcheck(pool, (x,))


def test_tiled_max_pool_matches_general_path():
    # the same (1, 2) windows, tiled and (with a stride differing from the kernel along the
    # dimension of size one) through the general path
    x = np.random.default_rng(4).standard_normal((2, 3, 1, 8))
    a = dyngrad.from_numpy(x).requires_grad_(True)
    b = dyngrad.from_numpy(x).requires_grad_(True)
    tiled = dyngrad.nn.functional.max_pool2d(a, (1, 2))
    general = dyngrad.nn.functional.max_pool2d(b, (1, 2), stride=(3, 2))
    np.testing.assert_array_equal(tiled.detach().numpy(), general.detach().numpy())
    tiled.sum().backward()
    general.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())


# ---- convolution: im2col + one stacked GEMM --------------------------------------------------


_CONV2D_GRID = list(
    itertools.product(
        [1, 2, (2, 1)],  # stride
        [0, 1, (2, 0)],  # padding
        [1, (2, 1)],  # dilation
        [1, 2],  # groups
    )
)


@pytest.mark.parametrize("stride, padding, dilation, groups", _CONV2D_GRID)
def test_conv2d_grid_matches_torch(torch, stride, padding, dilation, groups):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 4, 7, 6))
    w = rng.standard_normal((6, 4 // groups, 3, 2))
    b = rng.standard_normal(6)

    def conv(t, x, w, b):
        return t.nn.functional.conv2d(x, w, b, stride, padding, dilation, groups)

    _check(torch, conv, [x, w, b])


@pytest.mark.parametrize("nd", [1, 3])
def test_conv_1d_3d_match_torch(torch, nd):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 2) + (5,) * nd)
    w = rng.standard_normal((4, 1) + (2,) * nd)
    name = f"conv{nd}d"

    def conv(t, x, w):
        return getattr(t.nn.functional, name)(x, w, None, 2, 1, 1, 2)

    _check(torch, conv, [x, w])


@pytest.mark.parametrize("stride, padding, output_padding", [(1, 0, 0), (2, 1, 1), (3, 2, 0)])
def test_conv_transpose2d_matches_torch(torch, stride, padding, output_padding):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 4, 4, 3))
    w = rng.standard_normal((4, 3, 3, 2))
    b = rng.standard_normal(6)

    def conv(t, x, w, b):
        return t.nn.functional.conv_transpose2d(x, w, b, stride, padding, output_padding, 2)

    _check(torch, conv, [x, w, b])


def test_conv2d_float32_bias_added_in_place_keeps_dtype(torch):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((3, 2, 6, 6)).astype(np.float32)
    w = rng.standard_normal((5, 2, 3, 3)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)

    def conv(t, x, w, b):
        return t.nn.functional.conv2d(x, w, b, padding=1)

    _check(torch, conv, [x, w, b], rtol=1e-5, atol=1e-5)


def test_conv_transpose2d_stride1_dilated_output_padding_matches_torch(torch):
    # stride 1 with output_padding < dilation: the padded input is longer than the taps reach
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 3, 4, 5))
    w = rng.standard_normal((3, 2, 2, 3))

    def conv(t, x, w):
        return t.nn.functional.conv_transpose2d(x, w, None, 1, 0, 1, 1, 2)

    _check(torch, conv, [x, w])


@pytest.mark.filterwarnings("ignore:invalid value encountered in matmul")
def test_conv2d_infinite_weight_input_grad_has_torch_nan_pattern(torch):
    # the shifted col2im would turn its zero padding into NaN here: the strided form runs
    rng = np.random.default_rng(10)
    x = rng.standard_normal((1, 2, 5, 5))
    w = rng.standard_normal((3, 2, 3, 3))
    w[1, 0, 2, 2] = np.inf
    theirs, ours = _pair(torch, [x, w])
    cotangent = np.zeros((1, 3, 5, 5))
    cotangent[0, 1, 2, 2] = 1.0
    torch.nn.functional.conv2d(theirs[0], theirs[1], padding=1).backward(
        torch.from_numpy(cotangent)
    )
    dyngrad.nn.functional.conv2d(ours[0], ours[1], padding=1).backward(
        dyngrad.from_numpy(cotangent)
    )
    expected = theirs[0].grad.numpy()
    assert np.isnan(expected).any()
    np.testing.assert_array_equal(np.isnan(ours[0].grad.numpy()), np.isnan(expected))
    np.testing.assert_allclose(ours[0].grad.numpy(), expected, rtol=1e-12)


# ---- GELU: float32 erf, fused backward -----------------------------------------------------


def test_float32_erf_within_two_ulp():
    import math

    from dyngrad.ops.arrays.erf_float32 import erf_float32

    x = np.linspace(-6, 6, 200001).astype(np.float32)
    x = np.concatenate([x, np.float32([1e-30, -1e-30, 1.0, -1.0, 3.9, 4.0, 30.0])])
    exact = np.array([math.erf(v) for v in x.astype(np.float64).tolist()])
    got = erf_float32(np, x).astype(np.float64)
    ulp = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    assert (np.abs(got - exact) / ulp).max() <= 2.0
    special = erf_float32(np, np.float32([np.nan, np.inf, -np.inf, -0.0]))
    assert np.isnan(special[0]) and special[1] == 1 and special[2] == -1
    assert special[3] == 0 and np.signbit(special[3])


def test_gelu_tanh_float32_matches_torch(torch):
    # for negative x the two terms of the derivative cancel in float32: noise of a few 1e-6
    x = np.random.default_rng(11).uniform(-4.5, 6, (4, 64)).astype(np.float32)

    def gelu(t, a):
        return t.nn.functional.gelu(a, approximate="tanh")

    _check(torch, gelu, [x], rtol=1e-5, atol=5e-6)


def test_gelu_float32_forward_and_backward_match_float64_torch(torch):
    # against torch in float64: torch's own float32 erf is less accurate than this one
    x = np.random.default_rng(11).standard_normal((4, 64)) * 3
    x32 = dyngrad.from_numpy(x.astype(np.float32)).requires_grad_(True)
    x64 = torch.from_numpy(x.astype(np.float32).astype(np.float64)).requires_grad_(True)
    v = np.random.default_rng(12).standard_normal(x.shape)
    ours = dyngrad.nn.functional.gelu(x32)
    theirs = torch.nn.functional.gelu(x64)
    assert ours.dtype == dyngrad.float32
    ours.backward(dyngrad.from_numpy(v.astype(np.float32)))
    theirs.backward(torch.from_numpy(v.astype(np.float32).astype(np.float64)))
    tol = dict(rtol=1e-6, atol=2e-7)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), **tol)
    np.testing.assert_allclose(x32.grad.numpy(), x64.grad.numpy(), **tol)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_double_backward_node_and_values_match_torch(torch, approximate):
    x = np.random.default_rng(12).standard_normal(7) * 2
    v = np.random.default_rng(13).standard_normal(7)
    results = []
    for t in (torch, dyngrad):
        a = t.from_numpy(x.copy()).requires_grad_(True)
        (grad,) = t.autograd.grad(
            t.nn.functional.gelu(a, approximate=approximate), a, t.from_numpy(v), create_graph=True
        )
        assert type(grad.grad_fn).__name__ == "GeluBackwardBackward0"
        (second,) = t.autograd.grad(grad.sum(), a)
        results.append((grad.detach().numpy(), second.numpy()))
    for ours, theirs in zip(results[1], results[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


# ---- softmax, layer norm, embedding backward -------------------------------------------------


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_backward_data_rows_match_torch(torch, name):
    x = np.random.default_rng(14).standard_normal((3, 5))
    v = np.random.default_rng(15).standard_normal((3, 5))
    results = []
    for t in (torch, dyngrad):
        a = t.from_numpy(x.copy()).requires_grad_(True)
        (grad,) = t.autograd.grad(getattr(t, name)(a, 1), a, t.from_numpy(v), create_graph=True)
        assert (
            type(grad.grad_fn).__name__ == f"{name.title().replace('_', '')}BackwardDataBackward0"
        )
        (second,) = t.autograd.grad((grad * grad).sum(), a)
        results.append((grad.detach().numpy(), second.numpy()))
    for ours, theirs in zip(results[1], results[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_fused_backward_matches_torch(torch, dtype, affine):
    rng = np.random.default_rng(16)
    arrays = [(rng.standard_normal((4, 3, 2, 5)) * 3 + 1).astype(dtype)]
    if affine:
        arrays += [
            rng.standard_normal((2, 5)).astype(dtype),
            rng.standard_normal((2, 5)).astype(dtype),
        ]

    def norm(t, x, *wb):
        return t.nn.functional.layer_norm(x, (2, 5), *wb)

    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    _check(torch, norm, arrays, **tol)


@pytest.mark.parametrize("high", [5, 1])  # 1: one index repeated past the round limit
def test_embedding_backward_sums_repeats_in_torch_order(torch, high):
    rng = np.random.default_rng(17)
    index = rng.integers(0, high, (6, 20))
    weight = rng.standard_normal((5, 8)).astype(np.float32)
    grad = rng.standard_normal((6, 20, 8)).astype(np.float32)
    t_weight = torch.from_numpy(weight.copy()).requires_grad_(True)
    d_weight = dyngrad.from_numpy(weight.copy()).requires_grad_(True)
    torch.nn.functional.embedding(torch.from_numpy(index), t_weight).backward(
        torch.from_numpy(grad)
    )
    dyngrad.nn.functional.embedding(dyngrad.from_numpy(index), d_weight).backward(
        dyngrad.from_numpy(grad)
    )
    np.testing.assert_array_equal(d_weight.grad.numpy(), t_weight.grad.numpy())


def test_embedding_backward_padding_idx_matches_torch(torch):
    rng = np.random.default_rng(18)
    index = rng.integers(0, 4, (3, 7))
    weight = rng.standard_normal((4, 3))

    def lookup(t, w):
        return t.nn.functional.embedding(t.from_numpy(index), w, padding_idx=2)

    _check(torch, lookup, [weight])
