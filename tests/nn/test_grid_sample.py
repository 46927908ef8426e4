"""F.grid_sample and F.affine_grid against torch: values, gradients of input, grid and theta,
node names, warnings and errors."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import dyngrad

from ..ops.oracle import same

RNG = np.random.default_rng(11)
X4 = RNG.standard_normal((2, 3, 4, 5))
X5 = RNG.standard_normal((2, 2, 3, 4, 3))
G4 = RNG.uniform(-1.4, 1.4, (2, 3, 4, 2))
G5 = RNG.uniform(-1.4, 1.4, (2, 2, 3, 2, 3))
CASES = list(
    itertools.product(("bilinear", "nearest"), ("zeros", "border", "reflection"), (False, True))
)


def _sample(t, x, grid, **kwargs):
    a = t.tensor(x, requires_grad=True)
    g = t.tensor(grid, requires_grad=True)
    out = t.nn.functional.grid_sample(a, g, **kwargs)
    weights = np.cos(np.arange(out.numel())).reshape(tuple(out.shape))
    (out * t.tensor(weights, dtype=out.dtype)).sum().backward()
    return out.detach().numpy(), a.grad.numpy(), g.grad.numpy(), out.grad_fn.name()


@pytest.mark.parametrize("mode, padding_mode, align_corners", CASES)
@pytest.mark.parametrize("x, grid", [(X4, G4), (X5, G5)], ids=["4d", "5d"])
def test_grid_sample_matches_torch(torch, x, grid, mode, padding_mode, align_corners):
    kwargs = {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}
    ours, theirs = _sample(dyngrad, x, grid, **kwargs), _sample(torch, x, grid, **kwargs)
    for a, b in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    assert ours[3] == theirs[3]


def test_grid_sample_float32_and_far_points_match_torch(torch):
    # points far outside, on the borders and at cell corners exactly
    grid = np.array([[[[-3.0, 0.0], [1.0, 1.0], [-1.0, -1.0], [0.5, 7.25]]]], np.float32)
    x = X4[:1].astype(np.float32)
    for padding_mode in ("zeros", "border", "reflection"):
        for align in (False, True):
            kwargs = {"padding_mode": padding_mode, "align_corners": align}
            ours, theirs = _sample(dyngrad, x, grid, **kwargs), _sample(torch, x, grid, **kwargs)
            for a, b in zip(ours[:3], theirs[:3]):
                assert a.dtype == b.dtype
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_grid_sample_bicubic_matches_torch(torch, padding_mode, align_corners, dtype):
    # batch 2, 3 channels, a non-square input and grid, points well outside [-1, 1] (the
    # padding applies to each of the 4x4 taps) and on the borders exactly
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 4, 5)).astype(dtype)
    grid = rng.uniform(-2.5, 2.5, (2, 3, 4, 2)).astype(dtype)
    grid[0, 0] = [[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0], [-3.0, 7.25]]
    kwargs = {"mode": "bicubic", "padding_mode": padding_mode, "align_corners": align_corners}
    ours, theirs = _sample(dyngrad, x, grid, **kwargs), _sample(torch, x, grid, **kwargs)
    tol = {"rtol": 1e-10, "atol": 1e-12} if dtype == "float64" else {"rtol": 1e-5, "atol": 1e-5}
    for a, b in zip(ours[:3], theirs[:3]):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, **tol)
    assert ours[3] == theirs[3] == "GridSampler2DBackward0"


@pytest.mark.parametrize("shape", [(1, 2, 1, 4), (2, 1, 3, 1)])
def test_grid_sample_bicubic_on_unit_sized_dims_matches_torch(torch, shape):
    rng = np.random.default_rng(6)
    x = rng.standard_normal(shape)
    grid = rng.uniform(-3.0, 3.0, (shape[0], 2, 3, 2))
    for padding_mode, align in itertools.product(("zeros", "border", "reflection"), (0, 1)):
        kwargs = {"mode": "bicubic", "padding_mode": padding_mode, "align_corners": bool(align)}
        ours, theirs = _sample(dyngrad, x, grid, **kwargs), _sample(torch, x, grid, **kwargs)
        for a, b in zip(ours[:3], theirs[:3]):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_grid_sample_bicubic_double_backward_matches_torch(torch):
    rng = np.random.default_rng(7)
    x0, g0 = rng.standard_normal((1, 2, 3, 4)), rng.uniform(-1.5, 1.5, (1, 2, 2, 2))
    for padding_mode in ("zeros", "border", "reflection"):
        results = []
        for t in (dyngrad, torch):
            x, g = t.tensor(x0, requires_grad=True), t.tensor(g0, requires_grad=True)
            out = t.nn.functional.grid_sample(
                x, g, mode="bicubic", padding_mode=padding_mode, align_corners=True
            )
            gx, gg = t.autograd.grad(out.square().sum(), (x, g), create_graph=True)
            results.append(
                [h.numpy() for h in t.autograd.grad(gx.sin().sum() + gg.cos().sum(), (x, g))]
            )
        for a, b in zip(*results):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_grid_sample_bicubic_gradcheck_and_gradgradcheck():
    x = dyngrad.tensor(RNG.standard_normal((2, 2, 3, 4)), requires_grad=True)
    g = dyngrad.tensor(RNG.uniform(-1.6, 1.6, (2, 2, 3, 2)), requires_grad=True)
    for padding_mode, align in itertools.product(("zeros", "border", "reflection"), (0, 1)):

        def fn(x, g):
            return dyngrad.nn.functional.grid_sample(
                x, g, mode="bicubic", padding_mode=padding_mode, align_corners=bool(align)
            )

        assert dyngrad.autograd.gradcheck(fn, (x, g))
        assert dyngrad.autograd.gradgradcheck(fn, (x, g))


def test_grid_sample_gradcheck_and_gradgradcheck():
    x = dyngrad.tensor(RNG.standard_normal((1, 2, 3, 3)), requires_grad=True)
    g = dyngrad.tensor(RNG.uniform(-1.3, 1.3, (1, 2, 2, 2)), requires_grad=True)
    for padding_mode in ("zeros", "border", "reflection"):

        def fn(x, g):
            return dyngrad.nn.functional.grid_sample(
                x, g, padding_mode=padding_mode, align_corners=False
            )

        assert dyngrad.autograd.gradcheck(fn, (x, g))
        assert dyngrad.autograd.gradgradcheck(fn, (x, g))


@pytest.mark.parametrize(
    "size, align_corners",
    [
        ((2, 3, 4, 5), False),
        ((2, 1, 6, 1), True),
        ((2, 2, 3, 4, 2), False),
        ((2, 1, 1, 2, 3), True),
    ],
)
def test_affine_grid_matches_torch(torch, size, align_corners):
    nd = len(size) - 2
    theta = RNG.standard_normal((2, nd, nd + 1))
    results = []
    for t in (dyngrad, torch):
        th = t.tensor(theta, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            grid = t.nn.functional.affine_grid(th, size, align_corners=align_corners)
        (
            grid * t.tensor(np.sin(np.arange(grid.numel())).reshape(tuple(grid.shape)))
        ).sum().backward()
        results.append((grid.detach().numpy(), th.grad.numpy(), grid.grad_fn.name()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    assert results[0][2] == results[1][2] == "AffineGridGeneratorBackward0"


def test_spatial_transformer_step_matches_torch(torch):
    # affine_grid into grid_sample: the gradient reaches theta through both
    theta = np.array([[[0.9, -0.2, 0.1], [0.15, 1.1, -0.05]]] * 2)
    results = []
    for t in (dyngrad, torch):
        th = t.tensor(theta, requires_grad=True)
        x = t.tensor(X4, requires_grad=True)
        grid = t.nn.functional.affine_grid(th, x.shape, align_corners=False)
        out = t.nn.functional.grid_sample(x, grid, align_corners=False)
        out.square().sum().backward()
        results.append((out.detach().numpy(), th.grad.numpy(), x.grad.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_default_align_corners_warns_as_torch(torch):
    for t in (dyngrad, torch):
        x, grid = t.tensor(X4), t.tensor(G4)
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0") as caught:
            t.nn.functional.grid_sample(x, grid)
        assert caught[0].filename == __file__
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            t.nn.functional.affine_grid(t.zeros(1, 2, 3), (1, 1, 2, 2))
        with pytest.warns(UserWarning, match="for unit-size grids when align_corners=True"):
            t.nn.functional.affine_grid(t.zeros(1, 2, 3), (1, 1, 1, 2), align_corners=True)


@pytest.mark.parametrize(
    "expr",
    [
        "t.nn.functional.grid_sample(x, g, mode='foo', align_corners=False)",
        "t.nn.functional.grid_sample(x, g, padding_mode='foo', align_corners=False)",
        "t.nn.functional.grid_sample(x[0], g, align_corners=False)",
        "t.nn.functional.grid_sample(x, g[0], align_corners=False)",
        "t.nn.functional.grid_sample(x, g[:1], align_corners=False)",
        "t.nn.functional.grid_sample(x, g[..., :1], align_corners=False)",
        "t.nn.functional.grid_sample(x.float(), g, align_corners=False)",
        "t.nn.functional.grid_sample(x5, g5, mode='bicubic', align_corners=False)",
        "t.nn.functional.grid_sample(x5.float(), g5, mode='bicubic', align_corners=False)",
        "t.nn.functional.grid_sample(x5, g5[:1], mode='bicubic', align_corners=False)",
        "t.nn.functional.grid_sample(x.float(), g[:1], align_corners=False)",
        "t.nn.functional.affine_grid(th, (2, 3, 6), align_corners=False)",
        "t.nn.functional.affine_grid(th[:, :1], (2, 3, 6, 7), align_corners=False)",
        "t.nn.functional.affine_grid(th, [2, 3, 6, 7, 2], align_corners=False)",
        "t.nn.functional.affine_grid(th, (3, 3, 6, 7), align_corners=False)",
        "t.nn.functional.affine_grid(th, (2, 3, 0, 7), align_corners=False)",
        "t.nn.functional.affine_grid(th.long(), (2, 3, 6, 7), align_corners=False)",
    ],
)
def test_grid_errors_match_torch(torch, expr):
    same(torch, expr, x=X4, g=G4, x5=X5, g5=G5, th=RNG.standard_normal((2, 2, 3)))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_affine_grid_keeps_a_low_precision_theta_dtype(torch, dtype):
    theta = np.random.default_rng(3).standard_normal((2, 2, 3)).astype(np.float32)
    ours = dyngrad.nn.functional.affine_grid(
        dyngrad.tensor(theta).to(getattr(dyngrad, dtype)), (2, 1, 4, 5), align_corners=False
    )
    theirs = torch.nn.functional.affine_grid(
        torch.tensor(theta).to(getattr(torch, dtype)), (2, 1, 4, 5), align_corners=False
    )
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.float().numpy(), theirs.float().numpy(), atol=2e-2)
