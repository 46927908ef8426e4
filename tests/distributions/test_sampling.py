"""Sampling: shapes and dtypes as torch's, moments of many draws, reparameterized gradients, and
the sampling primitives PyTorch draws with (so draws match once the streams do)."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

import dyngrad
from dyngrad import distributions as D

from .cases import CASES, IDS

N = 40_000


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_sample_shapes_dtypes_and_flags_match_torch(case, torch):
    ours, theirs = case.build(dyngrad), case.build(torch)
    assert ours.has_rsample == theirs.has_rsample
    assert ours.has_enumerate_support == theirs.has_enumerate_support
    assert ours.batch_shape == theirs.batch_shape and ours.event_shape == theirs.event_shape
    for shape in [(), (5,), (2, 3)]:
        a, b = ours.sample(shape), theirs.sample(shape)
        assert tuple(a.shape) == tuple(b.shape)
        assert a.dtype.name == str(b.dtype).replace("torch.", "")
        assert not a.requires_grad
        if theirs.has_rsample:
            r = ours.rsample(shape)
            assert tuple(r.shape) == tuple(b.shape) and r.requires_grad
            assert r.grad_fn.name() == theirs.rsample(shape).grad_fn.name()


@pytest.mark.parametrize(
    "case", [c for c in CASES if not c.name.startswith("categ")], ids=lambda c: c.name
)
def test_sample_moments_match_mean_and_variance(case):
    dyngrad.manual_seed(3)
    dist = case.build(dyngrad, requires_grad=False)
    draws = dist.sample((N,)).numpy()
    assert bool(dist.support.check(dyngrad.from_numpy(draws)).all())
    try:
        mean, var = dist.mean.numpy(), dist.variance.numpy()
    except NotImplementedError:  # no closed form (a tanh-transformed Normal): support only
        return
    if not np.isfinite(mean).all():  # Cauchy: no moments; its median is loc
        np.testing.assert_allclose(np.median(draws, 0), dist.mode.numpy(), atol=0.05)
        return
    stderr = np.sqrt(var / N)
    np.testing.assert_array_less(np.abs(draws.mean(0) - mean), 6 * stderr + 1e-9)
    np.testing.assert_allclose(draws.var(0), var, rtol=0.08, atol=1e-9)


def test_categorical_frequencies_match_probs():
    probs = dyngrad.tensor([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    draws = D.Categorical(probs=probs).sample((N,)).numpy()
    assert draws.dtype == np.int64 and draws.shape == (N, 2)
    freq = np.stack([(draws == k).mean(0) for k in range(3)], -1)
    np.testing.assert_allclose(freq, probs.numpy(), atol=0.01)


def _mean_grad(dist_fn, *values, stat=lambda x: x):
    # d E[stat(x)] / d params, estimated by differentiating the mean of many rsample draws
    params = [dyngrad.tensor(v, dtype=dyngrad.float64, requires_grad=True) for v in values]
    stat(dist_fn(*params).rsample((N,))).mean().backward()
    return [p.grad.item() for p in params]


def test_normal_rsample_gradient_is_reparameterized():
    dyngrad.manual_seed(0)
    g_loc, g_scale = _mean_grad(D.Normal, 0.3, 1.5, stat=lambda x: x * x)
    # E[x^2] = loc^2 + scale^2
    assert g_loc == pytest.approx(0.6, abs=0.05) and g_scale == pytest.approx(3.0, abs=0.05)


@pytest.mark.parametrize("alpha", [0.3, 1.0, 4.0, 30.0])
def test_gamma_rsample_gradient_is_the_derivative_of_the_mean(alpha):
    dyngrad.manual_seed(1)
    g_alpha, g_rate = _mean_grad(D.Gamma, alpha, 2.0)
    # E[x] = alpha / rate
    assert g_alpha == pytest.approx(0.5, rel=0.03)
    assert g_rate == pytest.approx(-alpha / 4, rel=0.03)


def test_beta_and_dirichlet_rsample_gradients_are_the_derivative_of_the_mean():
    dyngrad.manual_seed(2)
    a, b = 2.0, 3.0
    g_a, g_b = _mean_grad(D.Beta, a, b)
    # E[x] = a / (a + b)
    assert g_a == pytest.approx(b / (a + b) ** 2, rel=0.05)
    assert g_b == pytest.approx(-a / (a + b) ** 2, rel=0.05)
    alpha = dyngrad.tensor([1.0, 2.0, 3.0], dtype=dyngrad.float64, requires_grad=True)
    D.Dirichlet(alpha).rsample((N,))[:, 0].mean().backward()
    np.testing.assert_allclose(alpha.grad.numpy(), [5 / 36, -1 / 36, -1 / 36], atol=0.01)


def test_exponential_laplace_uniform_mvn_rsample_gradients():
    dyngrad.manual_seed(4)
    assert _mean_grad(D.Exponential, 2.0)[0] == pytest.approx(-0.25, rel=0.03)
    g_loc, g_scale = _mean_grad(D.Laplace, 0.5, 2.0, stat=lambda x: (x - 0.5).abs())
    assert g_loc == pytest.approx(0.0, abs=0.03) and g_scale == pytest.approx(1.0, rel=0.03)
    g_low, g_high = _mean_grad(D.Uniform, -1.0, 3.0)
    assert g_low == pytest.approx(0.5, abs=0.01) and g_high == pytest.approx(0.5, abs=0.01)
    tril = dyngrad.tensor([[1.0, 0.0], [0.5, 2.0]], dtype=dyngrad.float64, requires_grad=True)
    x = D.MultivariateNormal(dyngrad.zeros(2, dtype=dyngrad.float64), scale_tril=tril)
    draws = x.rsample((N,))
    (draws[:, 1] ** 2).mean().backward()  # E[x_1^2] = L_10^2 + L_11^2
    np.testing.assert_allclose(tril.grad.numpy(), [[0, 0], [1.0, 4.0]], atol=0.1)


def test_standard_gamma_gradient_matches_torch_approximation(torch):
    # PyTorch approximates the implicit derivative; dyngrad computes it exactly
    rng = np.random.default_rng(5)
    alpha = 10 ** rng.uniform(-2, 2.5, 2000)
    x = np.maximum(rng.gamma(alpha), 1e-300)
    ours = dyngrad._standard_gamma_grad(dyngrad.tensor(alpha), dyngrad.tensor(x)).numpy()
    theirs = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=2e-3)


def test_dirichlet_gradient_matches_torch_approximation(torch):
    rng = np.random.default_rng(6)
    a, b = 10 ** rng.uniform(-1.5, 2.5, (2, 2000))
    x = np.clip(rng.beta(a, b), 1e-300, 1 - 1e-16)
    args = [x, a, a + b]
    ours = dyngrad._dirichlet_grad(*map(dyngrad.tensor, args)).numpy()
    theirs = torch._dirichlet_grad(*map(torch.tensor, args)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=5e-3)


def _recording(monkeypatch, owner, name, calls):
    original = getattr(owner, name)

    def record(*args, **kwargs):
        calls.append(name)
        return original(*args, **kwargs)

    if owner is dyngrad.Tensor:
        monkeypatch.setattr(owner, name, record)
        return
    # a function: wherever dyngrad's modules bound it, under any name (the distributions
    # import it directly)
    targets = {id(original), id(getattr(original, "__wrapped__", original))}  # its out= form
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("dyngrad"):
            for key, value in list(vars(module).items()):
                if id(value) in targets:
                    monkeypatch.setattr(module, key, record)


@pytest.mark.parametrize(
    "make,method,primitive",
    [
        (lambda: D.Normal(dyngrad.zeros(2), dyngrad.ones(2)), "sample", "normal"),
        (lambda: D.Normal(dyngrad.zeros(2), dyngrad.ones(2)), "rsample", "normal_"),
        (lambda: D.Bernoulli(probs=dyngrad.full((2,), 0.3)), "sample", "bernoulli"),
        (lambda: D.Categorical(probs=dyngrad.ones(3)), "sample", "multinomial"),
        (lambda: D.Gamma(dyngrad.ones(2), dyngrad.ones(2)), "rsample", "_standard_gamma"),
        (lambda: D.Dirichlet(dyngrad.ones(3)), "rsample", "_sample_dirichlet"),
        (lambda: D.Beta(dyngrad.ones(2), dyngrad.ones(2)), "sample", "_sample_dirichlet"),
        (lambda: D.Uniform(dyngrad.zeros(2), dyngrad.ones(2)), "rsample", "rand"),
        (lambda: D.Exponential(dyngrad.ones(2)), "rsample", "exponential_"),
        (lambda: D.Laplace(dyngrad.zeros(2), dyngrad.ones(2)), "rsample", "uniform_"),
        (lambda: D.MultivariateNormal(dyngrad.zeros(2), dyngrad.eye(2)), "rsample", "normal_"),
        (lambda: D.Poisson(dyngrad.ones(2)), "sample", "poisson"),
        (lambda: D.Cauchy(dyngrad.zeros(2), dyngrad.ones(2)), "rsample", "cauchy_"),
        (lambda: D.HalfNormal(dyngrad.ones(2)), "rsample", "normal_"),
    ],
)
def test_samplers_draw_with_pytorchs_primitives(monkeypatch, make, method, primitive):
    calls: list = []
    owner = dyngrad.Tensor if primitive.endswith("_") else dyngrad  # in-place: a method
    _recording(monkeypatch, owner, primitive, calls)
    getattr(make(), method)((4,))
    assert calls == [primitive]


def test_gamma_rsample_is_clamped_to_the_smallest_normal():
    draws = D.Gamma(dyngrad.full((1000,), 1e-3), dyngrad.ones(1000)).rsample()
    assert float(draws.min()) >= float(np.finfo(np.float32).tiny)
    assert not math.isnan(float(draws.sum()))
