"""kl_divergence for every registered pair against torch (values and gradients), the lookup
rules of register_kl, and the error for a pair with no formula."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad

R = np.random.default_rng(99)


def _u(low, high, *shape):
    return R.uniform(low, high, shape)


def _tril(n):
    a = R.standard_normal((n, n))
    return np.linalg.cholesky(a @ a.T + n * np.eye(n))


# name -> (constructor from lib.distributions and parameter tensors, parameter arrays)
FAMILIES = {
    "Normal": (lambda d, a, b: d.Normal(a, b), [_u(-1, 1, 3), _u(0.5, 2, 3)]),
    "Laplace": (lambda d, a, b: d.Laplace(a, b), [_u(-1, 1, 3), _u(0.5, 2, 3)]),
    "Exponential": (lambda d, a: d.Exponential(a), [_u(0.5, 2, 3)]),
    "Gamma": (lambda d, a, b: d.Gamma(a, b), [_u(0.5, 3, 3), _u(0.5, 2, 3)]),
    "Beta": (lambda d, a, b: d.Beta(a, b), [_u(0.5, 3, 3), _u(0.5, 3, 3)]),
    "Uniform": (lambda d, a, w: d.Uniform(a, a + w), [_u(0.1, 0.3, 3), _u(0.2, 0.6, 3)]),
    "UniformWide": (lambda d, a, w: d.Uniform(a, a + w), [_u(-1, -0.5, 3), _u(2, 3, 3)]),
    "Bernoulli": (lambda d, p: d.Bernoulli(probs=p), [np.array([0.0, 0.3, 1.0])]),
    "BernoulliLogits": (lambda d, x: d.Bernoulli(logits=x), [_u(-2, 2, 3)]),
    "Categorical": (
        lambda d, p: d.Categorical(probs=p),
        [np.array([[0.0, 0.5, 0.5], [0.2, 0.3, 0.5]])],
    ),
    "CategoricalLogits": (lambda d, x: d.Categorical(logits=x), [_u(-2, 2, 2, 3)]),
    "OneHotCategorical": (lambda d, x: d.OneHotCategorical(logits=x), [_u(-2, 2, 2, 3)]),
    "Dirichlet": (lambda d, a: d.Dirichlet(a), [_u(0.5, 3, 2, 3)]),
    "MVN": (
        lambda d, loc, tril: d.MultivariateNormal(loc, scale_tril=tril),
        [_u(-1, 1, 2, 3), _tril(3)],
    ),
    "MVNBatched": (
        lambda d, loc, tril: d.MultivariateNormal(loc, scale_tril=tril),
        [_u(-1, 1, 3), np.stack([_tril(3), _tril(3)])],
    ),
    "LogNormal": (lambda d, a, b: d.LogNormal(a, b), [_u(-1, 1, 3), _u(0.5, 2, 3)]),
    "Poisson": (lambda d, rate: d.Poisson(rate), [_u(0.5, 3, 3)]),
    "Cauchy": (lambda d, a, b: d.Cauchy(a, b), [_u(-1, 1, 3), _u(0.5, 2, 3)]),
    "HalfNormal": (lambda d, scale: d.HalfNormal(scale), [_u(0.5, 2, 3)]),
    "Independent": (
        lambda d, a, b: d.Independent(d.Normal(a, b), 1),
        [_u(-1, 1, 2, 3), _u(0.5, 2, 2, 3)],
    ),
}
PAIRS = [
    ("Normal", "Normal"),
    ("Laplace", "Laplace"),
    ("Exponential", "Exponential"),
    ("Gamma", "Gamma"),
    ("Beta", "Beta"),
    ("Uniform", "Uniform"),
    ("Uniform", "UniformWide"),
    ("Bernoulli", "BernoulliLogits"),
    ("BernoulliLogits", "Bernoulli"),
    ("Categorical", "CategoricalLogits"),
    ("CategoricalLogits", "Categorical"),
    ("OneHotCategorical", "OneHotCategorical"),
    ("Dirichlet", "Dirichlet"),
    ("MVN", "MVN"),
    ("MVN", "MVNBatched"),
    ("LogNormal", "LogNormal"),
    ("Poisson", "Poisson"),
    ("Cauchy", "Cauchy"),
    ("HalfNormal", "HalfNormal"),
    ("BernoulliLogits", "Poisson"),
    ("Poisson", "Bernoulli"),
    ("Independent", "Independent"),
    ("Beta", "Exponential"),
    ("Beta", "Gamma"),
    ("Beta", "Normal"),
    ("Beta", "UniformWide"),
    ("Exponential", "Gamma"),
    ("Exponential", "Normal"),
    ("Exponential", "Uniform"),
    ("Gamma", "Exponential"),
    ("Gamma", "Normal"),
    ("Gamma", "Beta"),
    ("Laplace", "Normal"),
    ("Laplace", "Gamma"),
    ("Normal", "Laplace"),
    ("Normal", "Uniform"),
    ("Uniform", "Beta"),
    ("Uniform", "Exponential"),
    ("Uniform", "Gamma"),
    ("Uniform", "Normal"),
]


def _build(lib, name):
    make, arrays = FAMILIES[name]
    params = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays]
    return make(lib.distributions, *params), params


def _kl(lib, p_name, q_name):
    p, p_params = _build(lib, p_name)
    q, q_params = _build(lib, q_name)
    return lib.distributions.kl_divergence(p, q), p_params + q_params


@pytest.mark.parametrize("p_name,q_name", PAIRS, ids=[f"{p}-{q}" for p, q in PAIRS])
def test_kl_divergence_and_its_gradients_match_torch(p_name, q_name, torch):
    theirs, theirs_params = _kl(torch, p_name, q_name)
    ours, ours_params = _kl(dyngrad, p_name, q_name)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-9)
    if not theirs.requires_grad:
        return
    finite = np.isfinite(theirs.detach().numpy())
    w = np.random.default_rng(0).uniform(0.5, 1.5, tuple(theirs.shape)) * finite
    theirs.backward(torch.tensor(w))
    ours.backward(dyngrad.tensor(w))
    for a, b in zip(ours_params, theirs_params):
        if b.grad is None:
            assert a.grad is None or not np.any(a.grad.numpy())
            continue
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-7, atol=1e-9)


def test_unregistered_pair_raises_torchs_error(torch):
    for lib in (dyngrad, torch):
        d = lib.distributions
        with pytest.raises(
            NotImplementedError,
            match=r"^No KL\(p \|\| q\) is implemented for "
            r"p type Categorical and q type Normal$",
        ):
            d.kl_divergence(d.Categorical(logits=lib.zeros(3)), d.Normal(0.0, 1.0))


def _rate_family(lib):
    # an exponential family known only by its natural parameter and log normalizer
    d = lib.distributions

    class Rate(d.ExponentialFamily):
        arg_constraints = {"rate": d.constraints.positive}
        support = d.constraints.nonnegative
        _mean_carrier_measure = 0

        def __init__(self, rate):
            self.rate = rate
            super().__init__(rate.shape)

        @property
        def _natural_params(self):
            return (-self.rate,)

        def _log_normalizer(self, x):
            return -lib.log(-x)

    class Other(Rate):
        pass

    return Rate, Other


def test_exponential_family_entropy_and_bregman_kl_match_torch(torch):
    outs = []
    for lib in (dyngrad, torch):
        Rate, Other = _rate_family(lib)
        # p's parameters are detached in both (as in PyTorch): the gradient reaches q's only
        rate = lib.tensor([0.5, 2.0], dtype=lib.float64, requires_grad=True)
        rate_q = lib.tensor([1.5, 1.0], dtype=lib.float64, requires_grad=True)
        p, q = Rate(rate), Rate(rate_q)
        entropy, kl = p.entropy(), lib.distributions.kl_divergence(p, q)
        (entropy.sum() + kl.sum()).backward()
        assert rate.grad is None
        with pytest.raises(NotImplementedError) as info:
            lib.distributions.kl_divergence(p, Other(rate))
        outs.append(
            (entropy.detach().numpy(), kl.detach().numpy(), rate_q.grad.numpy(), str(info.value))
        )
    (e1, k1, g1, m1), (e2, k2, g2, m2) = outs
    np.testing.assert_allclose(e1, e2, rtol=1e-12)
    np.testing.assert_allclose(k1, k2, rtol=1e-12)
    np.testing.assert_allclose(g1, g2, rtol=1e-12)
    assert m1 == m2


def test_register_kl_takes_the_most_specific_pair_and_warns_when_ambiguous(torch):
    for lib in (dyngrad, torch):
        d = lib.distributions

        class MyNormal(d.Normal):
            pass

        class Other(d.Normal):
            pass

        @d.register_kl(MyNormal, d.Normal)
        def _mine(p, q):
            return lib.tensor(1.0)

        assert d.kl_divergence(MyNormal(0.0, 1.0), d.Normal(0.0, 2.0)).item() == 1.0

        @d.register_kl(d.Normal, Other)
        def _other(p, q):
            return lib.tensor(2.0)

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            d.kl_divergence(MyNormal(0.0, 1.0), Other(0.0, 1.0))
        assert [str(w.message) for w in caught] == [
            "Ambiguous kl_divergence(MyNormal, Other). Please register_kl(MyNormal, Other)"
        ]


def test_mvn_kl_with_different_event_shapes_raises(torch):
    messages = []
    for lib in (dyngrad, torch):
        d = lib.distributions
        p = d.MultivariateNormal(lib.zeros(2), lib.eye(2))
        q = d.MultivariateNormal(lib.zeros(3), lib.eye(3))
        with pytest.raises(ValueError) as info:
            d.kl_divergence(p, q)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
