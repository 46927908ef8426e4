"""Sampling of the distributions of cases_more.py: seeded draws equal to torch's where
dyngrad's generator draws as PyTorch's does, and otherwise the distribution of the draws.

Note [Draws that cannot follow PyTorch's stream]
dyngrad's normal, uniform, exponential, cauchy, geometric and multinomial draws are PyTorch's
bit for bit, so every distribution built on them draws PyTorch's numbers for a seed. Its
gamma, poisson and binomial samplers are not PyTorch's algorithms (Marsaglia-Tsang with
PyTorch's own uniform/normal interleaving, PTRS, BTRS), so StudentT, Chi2, FisherSnedecor,
InverseGamma, Wishart (gamma), LKJCholesky (Beta, a Dirichlet draw), Binomial (binomial) and
NegativeBinomial (gamma then poisson) draw
other numbers for the same seed: for those the tests check the moments of many draws and
that the sampler calls the primitive PyTorch's calls.
"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad import distributions as D

from .cases_more import MORE_CASES
from .test_sampling import _recording

N = 40_000

# the cases whose draws follow PyTorch's stream (see the Note above)
SEEDED = [
    "gumbel",
    "geometric_probs",
    "geometric_logits",
    "multinomial_probs",
    "multinomial_logits",
    "weibull",
    "pareto",
    "half_cauchy",
    "von_mises",
    "kumaraswamy",
    "continuous_bernoulli_probs",
    "continuous_bernoulli_logits",
    "relaxed_bernoulli",
    "relaxed_bernoulli_logits",
    "relaxed_one_hot",
    "relaxed_one_hot_logits",
    "logistic_normal",
    "mixture_normal",
    "mixture_mvn",
    "lowrank_mvn",
    "generalized_pareto",
]
NOT_SEEDED = [
    "student_t",
    "student_t_heavy",
    "binomial_probs",
    "binomial_logits_counts",
    "negative_binomial_probs",
    "negative_binomial_logits",
    "chi2",
    "fisher_snedecor",
    "inverse_gamma",
    "wishart_covariance",
    "wishart_precision",
    "wishart_scale_tril",
    "lkj_cholesky",
]
BY_NAME = {c.name: c for c in MORE_CASES}


def test_every_case_is_sorted_into_seeded_or_not():
    assert sorted(SEEDED + NOT_SEEDED) == sorted(BY_NAME)


def _weights(shape):
    return np.random.default_rng(9).uniform(0.5, 1.5, tuple(shape))


@pytest.mark.parametrize("name", SEEDED)
def test_seeded_draws_match_torch(name, torch):
    case = BY_NAME[name]
    outs = []
    for lib in (dyngrad, torch):
        dist, params = case.construct(lib)
        lib.manual_seed(11)
        drawn = [dist.sample((5,)).numpy(), dist.sample().numpy()]
        grads = []
        if dist.has_rsample:
            r = dist.rsample((3,))
            drawn.append(r.detach().numpy())
            (r * lib.tensor(_weights(r.shape))).sum().backward()
            grads = [p.grad.numpy() for p in params if p.grad is not None]
        outs.append((drawn, grads))
    (ours, ours_grads), (theirs, theirs_grads) = outs
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    assert len(ours_grads) == len(theirs_grads)
    for a, b in zip(ours_grads, theirs_grads):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", SEEDED + NOT_SEEDED)
def test_sample_moments_match_mean_and_variance(name):
    case = BY_NAME[name]
    dyngrad.manual_seed(3)
    dist = case.build(dyngrad, requires_grad=False)
    draws = dist.sample((N,)).numpy()
    assert bool(dist.support.check(dyngrad.from_numpy(draws)).all())
    try:
        mean, var = dist.mean.numpy(), dist.variance.numpy()
    except NotImplementedError:  # no closed-form moments (the relaxed ones): support only
        return
    if name == "von_mises":  # circular: the mean direction and 1 - the mean resultant length
        resultant = np.exp(1j * draws).mean(0)
        np.testing.assert_allclose(np.angle(resultant), mean, atol=0.03)
        np.testing.assert_allclose(1 - np.abs(resultant), var, atol=0.01)
        return
    finite = np.isfinite(mean) & np.isfinite(var)  # heavy tails: no moments to compare
    stderr = np.sqrt(var / N)
    err = np.abs(draws.mean(0) - mean)
    assert (err[finite] < 6 * stderr[finite] + 1e-9).all()
    # the sample variance of a heavy-tailed law (finite variance, no 4th moment) converges
    # slowly: a loose bound there
    np.testing.assert_allclose(draws.var(0)[finite], var[finite], rtol=0.25, atol=1e-9)


def test_student_t_draws_follow_its_cdf(torch):
    # StudentT has no cdf: its draws are compared with torch's by a two-sample KS statistic
    dyngrad.manual_seed(5)
    torch.manual_seed(5)
    ours = D.StudentT(dyngrad.tensor(3.0, dtype=dyngrad.float64)).sample((N,)).numpy()
    theirs = torch.distributions.StudentT(torch.tensor(3.0, dtype=torch.float64))
    theirs = theirs.sample((N,)).numpy()
    grid = np.sort(np.concatenate([ours, theirs]))
    ks = (
        np.abs(
            np.searchsorted(np.sort(ours), grid, "right")
            - np.searchsorted(np.sort(theirs), grid, "right")
        ).max()
        / N
    )
    assert ks < 1.95 * np.sqrt(2 / N)  # the 0.1% critical value


def _mean_grad(dist_fn, *values):
    params = [dyngrad.tensor(v, dtype=dyngrad.float64, requires_grad=True) for v in values]
    dist_fn(*params).rsample((N,)).mean().backward()
    return [p.grad.item() for p in params]


def test_gamma_based_rsample_gradients_are_the_derivatives_of_the_mean():
    dyngrad.manual_seed(6)
    # StudentT: E[x] = loc, independent of df and scale
    g_df, g_loc, g_scale = _mean_grad(D.StudentT, 5.0, 0.5, 2.0)
    assert g_loc == pytest.approx(1.0, abs=1e-12)
    assert abs(g_df) < 0.05 and abs(g_scale) < 0.05
    # Chi2: E[x] = df
    assert _mean_grad(D.Chi2, 3.0)[0] == pytest.approx(1.0, rel=0.03)
    # InverseGamma: E[x] = rate / (a - 1)
    g_a, g_rate = _mean_grad(D.InverseGamma, 6.0, 2.0)
    assert g_a == pytest.approx(-2.0 / 25, rel=0.05) and g_rate == pytest.approx(0.2, rel=0.03)
    # FisherSnedecor: E[x] = d2 / (d2 - 2), independent of d1
    g1, g2 = _mean_grad(D.FisherSnedecor, 5.0, 12.0)
    assert abs(g1) < 0.01 and g2 == pytest.approx(-2.0 / 100, rel=0.15)


@pytest.mark.parametrize(
    "make,method,primitive",
    [
        (lambda: D.StudentT(dyngrad.ones(2)), "rsample", "_standard_gamma"),
        (lambda: D.Chi2(dyngrad.ones(2)), "rsample", "_standard_gamma"),
        (lambda: D.InverseGamma(dyngrad.ones(2), dyngrad.ones(2)), "rsample", "_standard_gamma"),
        (lambda: D.Binomial(5, dyngrad.full((2,), 0.3)), "sample", "binomial"),
        (lambda: D.NegativeBinomial(dyngrad.ones(2), dyngrad.full((2,), 0.3)), "sample", "poisson"),
        (lambda: D.Geometric(dyngrad.full((2,), 0.3)), "sample", "uniform_"),
        (lambda: D.Gumbel(dyngrad.zeros(2), dyngrad.ones(2)), "rsample", "rand"),
        (lambda: D.Weibull(dyngrad.ones(2), dyngrad.ones(2)), "rsample", "exponential_"),
        (lambda: D.HalfCauchy(dyngrad.ones(2)), "rsample", "cauchy_"),
        (lambda: D.Multinomial(3, dyngrad.ones(3)), "sample", "multinomial"),
    ],
)
def test_samplers_draw_with_pytorchs_primitives(monkeypatch, make, method, primitive):
    calls: list = []
    owner = dyngrad.Tensor if primitive.endswith("_") else dyngrad
    _recording(monkeypatch, owner, primitive, calls)
    getattr(make(), method)((4,))
    assert calls == [primitive]


def test_von_mises_draws_in_float64_and_returns_the_parameters_dtype(torch):
    for lib in (dyngrad, torch):
        lib.manual_seed(2)
        d = lib.distributions.VonMises(lib.tensor([0.5, -1.0]), lib.tensor([1e-6, 50.0]))
        x = d.sample((1000,))
        assert x.dtype == lib.float32
        assert float(x.min()) >= -np.pi and float(x.max()) < np.pi
    dyngrad.manual_seed(2)
    torch.manual_seed(2)
    a = D.VonMises(dyngrad.tensor([0.5, -1.0]), dyngrad.tensor([1e-6, 50.0])).sample((1000,))
    b = torch.distributions.VonMises(torch.tensor([0.5, -1.0]), torch.tensor([1e-6, 50.0]))
    np.testing.assert_allclose(a.numpy(), b.sample((1000,)).numpy(), rtol=1e-6, atol=1e-6)
