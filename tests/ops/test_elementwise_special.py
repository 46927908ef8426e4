"""erf, erfc and erfinv on NumPy: accuracy of both code paths, and agreement with torch."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dyngrad
from dyngrad.ops.arrays import erf as special

EPS = np.finfo(np.float64).eps


def _grid(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    return np.concatenate(
        [
            rng.uniform(-6, 6, n),
            rng.uniform(-30, 30, n // 4),
            rng.standard_normal(n // 4) * 1e-3,
            [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 26.5, 27.5, 1e-310],
        ]
    )


def _relative_error(ours, reference):
    scale = np.maximum(np.abs(reference), np.finfo(np.float64).tiny)
    err = np.abs(ours - reference) / scale
    return np.where(ours == reference, 0.0, err)


@pytest.mark.parametrize("name,ulps", [("erf", 4), ("erfc", 8)])
def test_vectorised_path_is_accurate_to_a_few_ulp(name, ulps):
    x = _grid()
    reference = np.array([getattr(math, name)(v) for v in x])  # within 1 ulp of exact
    assert x.size > 64  # the piecewise-polynomial path, not the per-element one
    ours = getattr(special, name)(np, x)
    assert _relative_error(ours, reference).max() < ulps * EPS


@pytest.mark.parametrize("name", ["erf", "erfc"])
def test_small_arrays_take_the_exact_scalar_path(name):
    x = _grid()[:50]
    ours = getattr(special, name)(np, x)
    np.testing.assert_array_equal(ours, [getattr(math, name)(v) for v in x])


@pytest.mark.parametrize("name", ["erf", "erfc", "erfinv"])
def test_nan_and_infinities(name):
    x = np.array([np.nan, np.inf, -np.inf] + [0.5] * 70)  # both paths: 73 and 3 elements
    expected = {
        "erf": [np.nan, 1.0, -1.0],
        "erfc": [np.nan, 0.0, 2.0],
        "erfinv": [np.nan, np.nan, np.nan],
    }[name]
    fn = getattr(special, name)
    np.testing.assert_array_equal(fn(np, x)[:3], expected)
    np.testing.assert_array_equal(fn(np, x[:3]), expected)


def test_erfinv_inverts_erf_to_full_precision():
    rng = np.random.default_rng(1)
    y = np.concatenate(
        [
            rng.uniform(-1, 1, 3000),
            1 - 10.0 ** -rng.uniform(1, 15, 300),
            rng.standard_normal(300) * 1e-8,
            [0.0, -0.0, 0.5, -0.5],
        ]
    )
    x = special.erfinv(np, y)
    upper = np.abs(y) > 0.5
    # near +-1, compare through erfc, where 1 - |y| is exact
    np.testing.assert_allclose(special.erf(np, x[~upper]), y[~upper], rtol=4 * EPS, atol=0)
    np.testing.assert_allclose(
        special.erfc(np, np.abs(x[upper])), 1 - np.abs(y[upper]), rtol=1e-13, atol=0
    )


def test_erfinv_edges():
    y = np.array([1.0, -1.0, 1.5, -2.0, 0.0, -0.0, np.nextafter(1.0, 0.0), 1e-300])
    x = special.erfinv(np, y)
    np.testing.assert_array_equal(x[:6], [np.inf, -np.inf, np.nan, np.nan, 0.0, -0.0])
    assert np.signbit(x[5])
    assert abs(x[6] - 5.863584748755168) < 1e-14
    assert x[7] == pytest.approx(1e-300 * math.sqrt(math.pi) / 2, rel=1e-15)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("name", ["erf", "erfc", "erfinv"])
def test_matches_torch_on_large_arrays(torch, name, dtype):
    rng = np.random.default_rng(2)
    x = rng.uniform(-0.999, 0.999, 5000) if name == "erfinv" else rng.uniform(-7, 7, 5000)
    x = x.astype(dtype)
    ours = getattr(dyngrad, name)(dyngrad.from_numpy(x)).numpy()
    theirs = getattr(torch, name)(torch.from_numpy(x)).numpy()
    assert ours.dtype == theirs.dtype
    tol = {"float64": 1e-13, "float32": 2e-6, "float16": 1e-3}[dtype]
    np.testing.assert_allclose(
        ours.astype(np.float64), theirs.astype(np.float64), rtol=tol, atol=tol * 1e-3
    )


def test_gelu_exact_matches_torch_on_a_large_array(torch):
    from dyngrad.ops.elementwise import activation

    x = np.random.default_rng(3).standard_normal(10000) * 4
    xd = dyngrad.from_numpy(x.copy()).requires_grad_()
    xt = torch.from_numpy(x.copy()).requires_grad_()
    yd, yt = activation.gelu(xd), torch.nn.functional.gelu(xt)
    np.testing.assert_allclose(yd.detach().numpy(), yt.detach().numpy(), rtol=1e-13, atol=1e-15)
    yd.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(xd.grad.numpy(), xt.grad.numpy(), rtol=1e-13, atol=1e-15)
