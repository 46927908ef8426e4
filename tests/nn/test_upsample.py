"""F.interpolate and nn.Upsample against torch: values, nodes, gradients and errors."""

from __future__ import annotations

import numpy as np
import pytest

from ..ops.oracle import same, same_grads

X4 = np.random.default_rng(0).standard_normal((2, 3, 5, 6)).astype(np.float32)
X3 = np.random.default_rng(1).standard_normal((2, 3, 7)).astype(np.float32)
F = "t.nn.functional.interpolate"


@pytest.mark.parametrize(
    "expr",
    [
        f"{F}(x, scale_factor=2)",
        f"{F}(x, scale_factor=0.5)",
        f"{F}(x, scale_factor=1.7)",
        f"{F}(x, size=(3, 11))",
        f"{F}(x, size=4)",
        f"{F}(x, scale_factor=(2, 0.5))",
        f"{F}(x, scale_factor=1.7, recompute_scale_factor=True)",
        f"{F}(x, size=(9, 4), mode='nearest-exact')",
        f"{F}(x, scale_factor=3, mode='bilinear')",
        f"{F}(x, scale_factor=0.6, mode='bilinear')",
        f"{F}(x, size=(2, 13), mode='bilinear')",
        f"{F}(x, size=(9, 1), mode='bilinear', align_corners=True)",
        f"{F}(x, scale_factor=1.3, mode='bilinear', align_corners=True)",
        f"{F}(y, scale_factor=2)",
        f"{F}(y, size=3, mode='linear')",
        f"{F}(y, scale_factor=2.5, mode='linear', align_corners=True)",
        f"{F}(y, size=10, mode='nearest-exact')",
        "t.nn.Upsample(scale_factor=2, mode='bilinear')(x)",
        "t.nn.UpsamplingNearest2d(size=7)(x)",
        "t.nn.UpsamplingBilinear2d(scale_factor=2)(x)",
        # errors, as torch words them
        f"{F}(x)",
        f"{F}(x, size=3, scale_factor=2)",
        f"{F}(x, scale_factor=2, align_corners=True)",
        f"{F}(y, scale_factor=2, mode='bilinear')",
        f"{F}(x, scale_factor=2, mode='foo')",
        f"{F}(x[0, 0], scale_factor=2)",
    ],
)
def test_interpolate_matches_torch(torch, expr):
    if "linear" not in expr or "(y, scale_factor=2, mode='bilinear')" in expr:
        # the nearest modes copy values (equal exactly); errors compare their first line
        same(torch, expr, requires_grad=True, x=X4, y=X3)
        return
    # the linear modes: the same weights in float32, summed in another order than torch's
    # fused loop (a few ulp apart)
    import dyngrad

    outs = []
    for lib in (dyngrad, torch):
        env = {
            "t": lib,
            "x": lib.tensor(X4, requires_grad=True),
            "y": lib.tensor(X3, requires_grad=True),
        }
        outs.append(eval(expr, env))
    ours, theirs = outs
    assert ours.grad_fn.name() == theirs.grad_fn.name() and ours.dtype == dyngrad.float32
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize(
    "expr",
    [
        f"{F}(x, scale_factor=1.7)",
        f"{F}(x, scale_factor=0.5, mode='bilinear')",
        f"{F}(x, size=(8, 3), mode='bilinear', align_corners=True)",
        f"{F}(y, size=12, mode='linear')",
    ],
)
def test_interpolate_gradients_match_torch(torch, expr):
    same_grads(torch, expr, x=X4.astype(np.float64), y=X3.astype(np.float64))


def test_upsample_repr_matches_torch(torch):
    import dyngrad

    for make in (
        "Upsample(scale_factor=2)",
        "Upsample(size=(3, 4), mode='bilinear')",
        "UpsamplingBilinear2d(scale_factor=2)",
        "Upsample(scale_factor=(2, 3))",
    ):
        assert repr(eval(f"m.nn.{make}", {"m": dyngrad})) == repr(
            eval(f"m.nn.{make}", {"m": torch})
        )


@pytest.mark.parametrize(
    "expr",
    [
        "t.nn.functional.pixel_shuffle(t.zeros(1, 5, 2, 2), 2)",
        "t.nn.functional.pixel_unshuffle(t.zeros(1, 2, 3, 4), 2)",
        "t.nn.functional.pixel_unshuffle(t.zeros(1, 2, 4, 3), 2)",
        "t.nn.functional.pixel_shuffle(t.zeros(4, 2), 2)",
        "t.nn.functional.pixel_shuffle(t.zeros(1, 4, 2, 2), 0)",
        "t.nn.PixelShuffle(2)(t.arange(16.0).reshape(1, 4, 2, 2))",
        "t.nn.PixelUnshuffle(2)(t.arange(16.0).reshape(1, 1, 4, 4))",
        "repr(t.nn.PixelShuffle(3))",
        "t.nn.ChannelShuffle(2)(t.arange(16.0).reshape(1, 4, 2, 2))",
        "t.nn.ChannelShuffle(3)(t.arange(16.0).reshape(1, 4, 2, 2))",
        "repr(t.nn.ChannelShuffle(4))",
    ],
)
def test_pixel_shuffle_matches_torch(torch, expr):
    same(torch, expr)


@pytest.mark.parametrize(
    "expr",
    [
        "t.nn.functional.unfold(t.zeros(2, 3, 4), 2)",
        "t.nn.functional.unfold(t.zeros(1, 2, 3, 3), 4)",
        "t.nn.functional.unfold(t.zeros(2, 3, 4, 5, 6), 2)",
        "t.nn.functional.fold(t.zeros(1, 8, 10), (4, 4), 2)",
        "t.nn.functional.fold(t.zeros(1, 7, 9), (4, 4), 2)",
        "t.nn.functional.fold(t.zeros(2, 3, 4, 5), (4, 4), 2)",
        "t.nn.Fold((4, 4), 2)(t.nn.Unfold(2)(t.arange(32.0).reshape(1, 2, 4, 4)))",
        "t.nn.Unfold(3, padding=1, stride=2)(t.arange(50.0).reshape(2, 1, 5, 5))",
        "t.nn.functional.fold(t.arange(18.0).reshape(8, 9)[:4].reshape(4, 9), 4, 2)",
        "repr(t.nn.Unfold(kernel_size=(2, 3)))",
        "repr(t.nn.Fold(output_size=(4, 5), kernel_size=2))",
    ],
)
def test_fold_and_unfold_match_torch(torch, expr):
    same(torch, expr)


@pytest.mark.parametrize(
    "expr",
    [
        "t.nn.functional.adaptive_max_pool2d(x, 2, return_indices=True)",
        "t.nn.functional.adaptive_max_pool2d(x, (3, None))",
        "t.nn.functional.adaptive_max_pool2d(x[0], 4)",
        "t.nn.functional.adaptive_max_pool2d(x, (7, 8))",
        "t.nn.functional.adaptive_max_pool2d(x[0, 0], 2)",
        "t.nn.functional.adaptive_max_pool1d(y, 3, return_indices=True)",
        "t.nn.AdaptiveMaxPool2d((2, 3))(x)",
        "t.nn.AdaptiveMaxPool1d(4, return_indices=True)(y)",
        "repr(t.nn.AdaptiveMaxPool2d(2, return_indices=True))",
    ],
)
def test_adaptive_max_pool_matches_torch(torch, expr):
    same(torch, expr, requires_grad=True, x=X4, y=X3)


def test_adaptive_max_pool_gradients_match_torch(torch):
    same_grads(torch, "t.nn.functional.adaptive_max_pool2d(x, (2, 4))", x=X4.astype(np.float64))
