"""kl_divergence for the pairs PyTorch registers with Binomial, ContinuousBernoulli, Geometric,
Gumbel, LowRankMultivariateNormal and Pareto, against torch (values and gradients)."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from . import test_kl
from .test_kl import FAMILIES, _tril, _u

MORE_FAMILIES = {
    "Binomial": (lambda d, p: d.Binomial(10, probs=p), [_u(0.1, 0.9, 3)]),
    "BinomialSmaller": (lambda d, x: d.Binomial(6, logits=x), [_u(-2, 2, 3)]),
    "BinomialCounts": (
        lambda d, n, x: d.Binomial(n, logits=x),
        [np.array([10.0, 12.0, 15.0]), _u(-2, 2, 3)],
    ),
    "ContinuousBernoulli": (
        lambda d, p: d.ContinuousBernoulli(probs=p),
        [np.array([0.2, 0.4995, 0.7])],
    ),
    "ContinuousBernoulliLogits": (lambda d, x: d.ContinuousBernoulli(logits=x), [_u(-2, 2, 3)]),
    "Geometric": (lambda d, p: d.Geometric(probs=p), [_u(0.1, 0.9, 3)]),
    "GeometricLogits": (lambda d, x: d.Geometric(logits=x), [_u(-2, 2, 3)]),
    "Gumbel": (lambda d, a, b: d.Gumbel(a, b), [_u(-1, 1, 3), _u(0.5, 2, 3)]),
    "Pareto": (lambda d, s, a: d.Pareto(s, a), [_u(0.5, 1.5, 3), np.array([0.8, 1.5, 3.0])]),
    "ParetoSmall": (lambda d, s, a: d.Pareto(s, a), [_u(0.05, 0.1, 3), _u(0.5, 3, 3)]),
    "UniformPositive": (
        lambda d, a, w: d.Uniform(a, a + w),
        [_u(1.6, 2.0, 3), _u(0.2, 0.6, 3)],
    ),
    "LowRank": (
        lambda d, loc, w, diag: d.LowRankMultivariateNormal(loc, w, diag),
        [_u(-1, 1, 2, 3), _u(-1, 1, 3, 2), _u(0.5, 2, 2, 3)],
    ),
    "LowRank2": (
        lambda d, loc, w, diag: d.LowRankMultivariateNormal(loc, w, diag),
        [_u(-1, 1, 3), _u(-1, 1, 2, 3, 1), _u(0.5, 2, 3)],
    ),
    "MVN3": (
        lambda d, loc, tril: d.MultivariateNormal(loc, scale_tril=tril),
        [_u(-1, 1, 3), _tril(3)],
    ),
}
MORE_PAIRS = [
    ("Binomial", "BinomialSmaller"),
    ("Binomial", "Binomial"),
    ("BinomialCounts", "Binomial"),
    ("ContinuousBernoulli", "ContinuousBernoulliLogits"),
    ("ContinuousBernoulliLogits", "ContinuousBernoulli"),
    ("Gumbel", "Gumbel"),
    ("Geometric", "GeometricLogits"),
    ("Pareto", "ParetoSmall"),
    ("ParetoSmall", "Pareto"),
    ("LowRank", "LowRank2"),
    ("MVN3", "LowRank"),
    ("LowRank2", "MVN3"),  # (PyTorch fails on a batched cov_diag with an unbatched factor)
    ("Beta", "ContinuousBernoulli"),
    ("Beta", "Pareto"),
    ("ContinuousBernoulli", "Pareto"),
    ("ContinuousBernoulli", "Exponential"),
    ("ContinuousBernoulli", "Normal"),
    ("ContinuousBernoulli", "Uniform"),
    ("ContinuousBernoulli", "UniformWide"),
    ("Exponential", "ContinuousBernoulli"),
    ("Exponential", "Pareto"),
    ("Exponential", "Gumbel"),
    ("Gamma", "ContinuousBernoulli"),
    ("Gamma", "Pareto"),
    ("Gamma", "Gumbel"),
    ("Gumbel", "Beta"),
    ("Gumbel", "ContinuousBernoulli"),
    ("Gumbel", "Exponential"),
    ("Gumbel", "Gamma"),
    ("Gumbel", "Pareto"),
    ("Gumbel", "Uniform"),
    ("Gumbel", "Normal"),
    ("Laplace", "ContinuousBernoulli"),
    ("Laplace", "Pareto"),
    ("Normal", "ContinuousBernoulli"),
    ("Normal", "Pareto"),
    ("Normal", "Gumbel"),
    ("Pareto", "Beta"),
    ("Pareto", "ContinuousBernoulli"),
    ("Pareto", "Uniform"),
    ("Pareto", "Exponential"),
    ("Pareto", "Gamma"),
    ("Pareto", "Normal"),
    ("Poisson", "Binomial"),
    ("Uniform", "ContinuousBernoulli"),
    ("UniformWide", "ContinuousBernoulli"),
    ("Uniform", "Gumbel"),
    ("UniformPositive", "Pareto"),
    ("Uniform", "Pareto"),
]


@pytest.fixture(autouse=True)
def _more_families(monkeypatch):
    # test_kl's harness builds by name from its FAMILIES: these join them for these tests
    monkeypatch.setattr(test_kl, "FAMILIES", {**FAMILIES, **MORE_FAMILIES})


@pytest.mark.parametrize("p_name,q_name", MORE_PAIRS, ids=[f"{p}-{q}" for p, q in MORE_PAIRS])
def test_kl_divergence_and_its_gradients_match_torch(p_name, q_name, torch):
    test_kl.test_kl_divergence_and_its_gradients_match_torch(p_name, q_name, torch)


def test_binomial_kl_with_more_trials_in_q_raises_torchs_error(torch):
    messages = []
    for lib in (dyngrad, torch):
        d = lib.distributions
        p, q = d.Binomial(5, probs=lib.tensor(0.5)), d.Binomial(10, probs=lib.tensor(0.5))
        with pytest.raises(NotImplementedError) as info:
            d.kl_divergence(p, q)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_lowrank_kl_with_different_event_shapes_raises(torch):
    messages = []
    for lib in (dyngrad, torch):
        d = lib.distributions
        p = d.LowRankMultivariateNormal(lib.zeros(2), lib.ones(2, 1), lib.ones(2))
        q = d.LowRankMultivariateNormal(lib.zeros(3), lib.ones(3, 1), lib.ones(3))
        for a, b in ((p, q), (p, d.MultivariateNormal(lib.zeros(3), lib.eye(3)))):
            with pytest.raises(ValueError) as info:
                d.kl_divergence(a, b)
            messages.append(str(info.value))
    assert messages[:2] == messages[2:]


def test_exponential_family_paths_of_wishart_and_continuous_bernoulli_match_torch(torch):
    # Wishart has no registered pair: the exponential-family Bregman divergence, whose
    # gradient reaches q's parameters only (p's are detached, as in PyTorch)
    outs = []
    for lib in (dyngrad, torch):
        d = lib.distributions
        cov = lib.tensor([[2.0, 0.3], [0.3, 1.0]], dtype=lib.float64, requires_grad=True)
        prec = lib.tensor([[1.0, 0.2], [0.2, 2.0]], dtype=lib.float64, requires_grad=True)
        p = d.Wishart(lib.tensor([3.5, 5.0], dtype=lib.float64), covariance_matrix=cov)
        q = d.Wishart(lib.tensor(4.0, dtype=lib.float64), precision_matrix=prec)
        kl = d.kl_divergence(p, q)
        kl.sum().backward()
        assert cov.grad is None
        cb = d.ContinuousBernoulli(lib.tensor([0.3, 0.7], dtype=lib.float64))
        outs.append(
            [
                kl.detach().numpy(),
                prec.grad.numpy(),
                d.ExponentialFamily.entropy(p).detach().numpy(),
                d.ExponentialFamily.entropy(cb).detach().numpy(),
            ]
        )
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-9)
