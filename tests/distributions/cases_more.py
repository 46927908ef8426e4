"""Parity cases for the distributions added after the first set (StudentT ... GeneralizedPareto):
the same `Case` as cases.py, run by test_more_*.py through the shared parity tests."""

from __future__ import annotations

import numpy as np

from .cases import Case

R = np.random.default_rng(2025)


def _uniform(low, high, *shape):
    return R.uniform(low, high, shape)


def _simplex(*shape):
    p = R.uniform(0.1, 1.0, shape)
    return p / p.sum(-1, keepdims=True)


def _spd(n, *batch):
    a = R.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _corr_cholesky(n, *batch):
    cov = _spd(n, *batch)
    d = np.sqrt(np.diagonal(cov, axis1=-2, axis2=-1))
    return np.linalg.cholesky(cov / d[..., :, None] / d[..., None, :])


def _counts(total, k, *shape):
    return R.multinomial(total, np.full(k, 1.0 / k), shape).astype(float)


U = _uniform(0.05, 0.95, 4, 3)
GP_LOC = _uniform(-1, 1, 3)

MORE_CASES = [
    Case(
        "student_t",
        lambda d, df, loc, scale: d.StudentT(df, loc, scale),
        [_uniform(2.5, 6, 3), _uniform(-1, 1, 3), _uniform(0.5, 2, 3)],
        _uniform(-3, 3, 4, 3),
        grad_params=(0, 1, 2),
    ),
    Case(
        "student_t_heavy",  # df <= 1: no mean; df <= 2: infinite variance
        lambda d, df: d.StudentT(df),
        [np.array([0.5, 1.5, 3.0])],
        _uniform(-3, 3, 4, 3),
        grad_params=(0,),
    ),
    Case(
        "gumbel",
        lambda d, loc, scale: d.Gumbel(loc, scale),
        [_uniform(-1, 1, 3), _uniform(0.5, 2, 3)],
        _uniform(-2, 4, 4, 3),
        unit_value=U,
        grad_params=(0, 1),
    ),
    Case(
        "geometric_probs",
        lambda d, p: d.Geometric(probs=p),
        [_uniform(0.1, 0.9, 3)],
        R.integers(0, 6, (4, 3)).astype(float),
        grad_params=(0,),
    ),
    Case(
        "geometric_logits",
        lambda d, x: d.Geometric(logits=x),
        [_uniform(-2, 2, 3)],
        R.integers(0, 6, (4, 3)).astype(float),
        grad_params=(0,),
    ),
    Case(
        "binomial_probs",
        lambda d, p: d.Binomial(10, probs=p),
        [_uniform(0.1, 0.9, 2, 3)],
        R.integers(0, 11, (4, 2, 3)).astype(float),
        grad_params=(0,),
    ),
    Case(
        "binomial_logits_counts",  # inhomogeneous counts: no entropy
        lambda d, n, x: d.Binomial(n, logits=x),
        [np.array([3.0, 7.0, 12.0]), _uniform(-2, 2, 3)],
        R.integers(0, 4, (4, 3)).astype(float),
        grad_params=(1,),
    ),
    Case(
        "multinomial_probs",
        lambda d, p: d.Multinomial(6, probs=p),
        [_simplex(2, 4)],
        _counts(6, 4, 5, 2),
        grad_params=(0,),
    ),
    Case(
        "multinomial_logits",
        lambda d, x: d.Multinomial(4, logits=x),
        [_uniform(-2, 2, 3)],
        _counts(4, 3, 5),
        grad_params=(0,),
    ),
    Case(
        "negative_binomial_probs",
        lambda d, n, p: d.NegativeBinomial(n, probs=p),
        [_uniform(0.5, 5, 3), _uniform(0.1, 0.9, 3)],
        R.integers(0, 8, (4, 3)).astype(float),
        grad_params=(0, 1),
    ),
    Case(
        "negative_binomial_logits",
        lambda d, n, x: d.NegativeBinomial(n, logits=x),
        [_uniform(0.5, 5, 3), _uniform(-2, 1, 3)],
        R.integers(0, 8, (4, 3)).astype(float),
        grad_params=(0, 1),
    ),
    Case(
        "weibull",
        lambda d, scale, c: d.Weibull(scale, c),
        [_uniform(0.5, 2, 3), _uniform(1.2, 3, 3)],
        _uniform(0.1, 3, 4, 3),
        unit_value=U,
        grad_params=(0, 1),
    ),
    Case(
        "pareto",
        lambda d, scale, alpha: d.Pareto(scale, alpha),
        [_uniform(0.5, 1, 3), np.array([0.8, 1.5, 3.0])],
        _uniform(1.0, 4, 4, 3),
        unit_value=U,
        grad_params=(0, 1),
    ),
    Case(
        "half_cauchy",
        lambda d, scale: d.HalfCauchy(scale),
        [_uniform(0.5, 2, 3)],
        _uniform(0.1, 4, 4, 3),
        unit_value=U,
        grad_params=(0,),
    ),
    Case(
        "chi2",
        lambda d, df: d.Chi2(df),
        [_uniform(1, 6, 3)],
        _uniform(0.1, 6, 4, 3),
        grad_params=(0,),
    ),
    Case(
        "fisher_snedecor",
        lambda d, df1, df2: d.FisherSnedecor(df1, df2),
        [np.array([1.5, 4.0, 8.0]), np.array([3.0, 6.0, 10.0])],
        _uniform(0.1, 4, 4, 3),
        grad_params=(0, 1),
    ),
    Case(
        "inverse_gamma",
        lambda d, a, rate: d.InverseGamma(a, rate),
        [np.array([0.8, 1.5, 4.0]), _uniform(0.5, 2, 3)],
        _uniform(0.1, 4, 4, 3),
        grad_params=(0, 1),
    ),
    Case(
        "von_mises",
        lambda d, loc, k: d.VonMises(loc, k),
        [_uniform(-2, 2, 3), np.array([0.5, 2.0, 8.0])],
        _uniform(-3.1, 3.1, 4, 3),
        grad_params=(0, 1),
    ),
    Case(
        "kumaraswamy",
        lambda d, a, b: d.Kumaraswamy(a, b),
        [np.array([0.7, 2.0, 3.0]), np.array([1.5, 0.8, 2.5])],
        _uniform(0.05, 0.95, 4, 3),
        unit_value=U,
        grad_params=(0, 1),
    ),
    Case(
        "continuous_bernoulli_probs",  # 0.4995: inside the Taylor region around 1/2
        lambda d, p: d.ContinuousBernoulli(probs=p),
        [np.array([0.2, 0.4995, 0.8])],
        _uniform(0.05, 0.95, 4, 3),
        unit_value=U,
        grad_params=(0,),
    ),
    Case(
        "continuous_bernoulli_logits",
        lambda d, x: d.ContinuousBernoulli(logits=x),
        [np.array([-1.5, 0.001, 2.0])],
        _uniform(0.05, 0.95, 4, 3),
        unit_value=U,
        grad_params=(0,),
    ),
    Case(
        "relaxed_bernoulli",
        lambda d, t, p: d.RelaxedBernoulli(t, probs=p),
        [np.array(0.7), _uniform(0.1, 0.9, 3)],
        _uniform(0.05, 0.95, 4, 3),
        grad_params=(0, 1),
    ),
    Case(
        "relaxed_bernoulli_logits",
        lambda d, t, x: d.RelaxedBernoulli(t, logits=x),
        [np.array([0.5, 1.0, 2.0]), _uniform(-2, 2, 3)],
        _uniform(0.05, 0.95, 4, 3),
        grad_params=(0, 1),
    ),
    Case(
        "relaxed_one_hot",
        lambda d, t, p: d.RelaxedOneHotCategorical(t, probs=p),
        [np.array(0.8), _simplex(2, 4)],
        _simplex(5, 2, 4),
        grad_params=(0, 1),
    ),
    Case(
        "relaxed_one_hot_logits",
        lambda d, t, x: d.RelaxedOneHotCategorical(t, logits=x),
        [np.array(1.3), _uniform(-2, 2, 3)],
        _simplex(5, 3),
        grad_params=(0, 1),
    ),
    Case(
        "logistic_normal",
        lambda d, loc, scale: d.LogisticNormal(loc, scale),
        [_uniform(-1, 1, 2, 3), _uniform(0.5, 2, 2, 3)],
        _simplex(5, 2, 4),
        grad_params=(0, 1),
    ),
    Case(
        "mixture_normal",
        lambda d, p, loc, scale: d.MixtureSameFamily(d.Categorical(p), d.Normal(loc, scale)),
        [_simplex(2, 3), _uniform(-2, 2, 2, 3), _uniform(0.5, 2, 2, 3)],
        _uniform(-3, 3, 4, 2),
        grad_params=(0, 1, 2),
    ),
    Case(
        "mixture_mvn",
        lambda d, p, loc, tril: d.MixtureSameFamily(
            d.Categorical(p), d.MultivariateNormal(loc, scale_tril=tril)
        ),
        [_simplex(3), _uniform(-2, 2, 3, 2), np.tril(_uniform(0.3, 1, 3, 2, 2)) + np.eye(2)],
        _uniform(-3, 3, 4, 2),
        grad_params=(0, 1, 2),
    ),
    Case(
        "lowrank_mvn",
        lambda d, loc, w, diag: d.LowRankMultivariateNormal(loc, w, diag),
        [_uniform(-1, 1, 2, 3), _uniform(-1, 1, 3, 2), _uniform(0.5, 2, 2, 3)],
        _uniform(-2, 2, 4, 2, 3),
        grad_params=(0, 1, 2),
    ),
    Case(
        "generalized_pareto",  # concentration < 0 (bounded), = 0 (exponential), > 0
        lambda d, loc, scale, c: d.GeneralizedPareto(loc, scale, c),
        [GP_LOC, np.array([2.0, 1.0, 0.5]), np.array([-0.3, 0.0, 0.4])],
        GP_LOC + _uniform(0.05, 3.0, 4, 3),
        unit_value=U,
        grad_params=(0, 1, 2),
    ),
]
MORE_CASES += [
    Case(
        "wishart_covariance",
        lambda d, df, cov: d.Wishart(df, covariance_matrix=cov),
        [np.array([3.5, 6.0]), _spd(3) / 3],
        _spd(3, 4, 2) / 3,
        grad_params=(0, 1),
    ),
    Case(
        "wishart_precision",
        lambda d, df, prec: d.Wishart(df, precision_matrix=prec),
        [np.array(4.5), _spd(3, 2) / 3],
        _spd(3, 4, 2) / 3,
        grad_params=(0, 1),
    ),
    Case(
        "wishart_scale_tril",
        lambda d, df, tril: d.Wishart(df, scale_tril=tril),
        [np.array([2.5, 7.0]), np.linalg.cholesky(_spd(2, 2) / 2)],
        _spd(2, 4, 2) / 2,
        grad_params=(0, 1),
    ),
    Case(
        "lkj_cholesky",
        lambda d, c: d.LKJCholesky(3, c),
        [np.array([0.5, 1.0, 3.0])],
        _corr_cholesky(3, 4, 3),
        grad_params=(0,),
    ),
]
MORE_IDS = [c.name for c in MORE_CASES]
