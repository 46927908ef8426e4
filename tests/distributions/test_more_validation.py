"""Argument and sample validation of the distributions of cases_more.py (messages as torch's),
their arg_constraints and supports, and the reprs of parameters given as numbers."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from .test_validation import _error

NAN = float("nan")

BAD_ARGUMENTS = {
    "student_t_df": lambda d, t: d.StudentT(t.tensor([1.0, -2.0])),
    "student_t_scale": lambda d, t: d.StudentT(2.0, 0.0, t.tensor([0.0])),
    "gumbel_scale": lambda d, t: d.Gumbel(t.tensor([0.0]), t.tensor([-1.0])),
    "geometric_probs": lambda d, t: d.Geometric(probs=t.tensor([0.5, 1.5])),
    "binomial_count": lambda d, t: d.Binomial(t.tensor([2.5]), probs=t.tensor([0.5])),
    "binomial_probs": lambda d, t: d.Binomial(3, probs=t.tensor([1.5])),
    "multinomial_probs": lambda d, t: d.Multinomial(3, probs=t.tensor([0.5, -0.5])),
    "negative_binomial_probs": lambda d, t: d.NegativeBinomial(2.0, probs=t.tensor([1.0])),
    "negative_binomial_count": lambda d, t: d.NegativeBinomial(t.tensor([-1.0]), t.tensor([0.5])),
    "weibull": lambda d, t: d.Weibull(t.tensor([1.0]), t.tensor([0.0])),
    "pareto": lambda d, t: d.Pareto(t.tensor([-1.0]), t.tensor([1.0])),
    "half_cauchy": lambda d, t: d.HalfCauchy(t.tensor([-1.0])),
    "chi2": lambda d, t: d.Chi2(t.tensor([0.0])),
    "fisher_snedecor": lambda d, t: d.FisherSnedecor(t.tensor([1.0]), t.tensor([NAN])),
    "inverse_gamma": lambda d, t: d.InverseGamma(t.tensor([1.0]), t.tensor([-1.0])),
    "von_mises": lambda d, t: d.VonMises(t.tensor([0.0]), t.tensor([-1.0])),
    "kumaraswamy": lambda d, t: d.Kumaraswamy(t.tensor([1.0]), t.tensor([-1.0])),
    "continuous_bernoulli": lambda d, t: d.ContinuousBernoulli(logits=t.tensor([NAN])),
    "relaxed_bernoulli": lambda d, t: d.RelaxedBernoulli(t.tensor(1.0), t.tensor([1.5])),
    "relaxed_one_hot": lambda d, t: d.RelaxedOneHotCategorical(
        t.tensor(1.0), t.tensor([0.5, -0.5])
    ),
    "logistic_normal": lambda d, t: d.LogisticNormal(t.tensor([0.0]), t.tensor([-1.0])),
    "lowrank_mvn": lambda d, t: d.LowRankMultivariateNormal(
        t.zeros(2), t.ones(2, 1), t.tensor([1.0, -1.0])
    ),
    "generalized_pareto": lambda d, t: d.GeneralizedPareto(0.0, t.tensor([-1.0]), 0.5),
    "wishart_covariance": lambda d, t: d.Wishart(
        3.0, covariance_matrix=t.tensor([[1.0, 2.0], [2.0, 1.0]])
    ),
    "wishart_scale_tril": lambda d, t: d.Wishart(
        3.0, scale_tril=t.tensor([[1.0, 0.5], [0.0, 1.0]])
    ),
    "lkj_cholesky": lambda d, t: d.LKJCholesky(3, t.tensor([0.0])),
}

BAD_CALLS = {
    "geometric_zero": lambda d, t: d.Geometric(probs=t.tensor([0.0, 0.5])),
    "geometric_neither": lambda d, t: d.Geometric(),
    "binomial_both": lambda d, t: d.Binomial(2, t.tensor(0.5), t.tensor(0.0)),
    "binomial_entropy": lambda d, t: d.Binomial(t.tensor([2.0, 3.0]), t.tensor(0.5)).entropy(),
    "binomial_support": lambda d, t: d.Binomial(3, t.tensor([0.5])).log_prob(t.tensor([4.0])),
    "multinomial_count": lambda d, t: d.Multinomial(t.tensor(3), t.tensor([0.5, 0.5])),
    "multinomial_support": lambda d, t: d.Multinomial(3, t.tensor([0.5, 0.5])).log_prob(
        t.tensor([3.0, 1.0])
    ),
    "negative_binomial_neither": lambda d, t: d.NegativeBinomial(2.0),
    "continuous_bernoulli_probs": lambda d, t: d.ContinuousBernoulli(
        t.tensor([1.5]), validate_args=True
    ),
    "pareto_support": lambda d, t: d.Pareto(t.tensor([2.0]), t.tensor([1.0])).log_prob(
        t.tensor([1.0])
    ),
    "mixture_not_categorical": lambda d, t: d.MixtureSameFamily(
        d.Normal(t.zeros(2), t.ones(2)), d.Normal(t.zeros(2), t.ones(2))
    ),
    "mixture_not_distribution": lambda d, t: d.MixtureSameFamily(d.Categorical(t.ones(2)), 1.0),
    "mixture_batch": lambda d, t: d.MixtureSameFamily(
        d.Categorical(t.ones(3, 2)), d.Normal(t.zeros(4, 2), t.ones(4, 2))
    ),
    "mixture_components": lambda d, t: d.MixtureSameFamily(
        d.Categorical(t.ones(3)), d.Normal(t.zeros(2), t.ones(2))
    ),
    "lowrank_loc_0d": lambda d, t: d.LowRankMultivariateNormal(
        t.tensor(0.0), t.ones(2, 1), t.ones(2)
    ),
    "lowrank_factor_1d": lambda d, t: d.LowRankMultivariateNormal(t.zeros(2), t.ones(2), t.ones(2)),
    "lowrank_factor_rows": lambda d, t: d.LowRankMultivariateNormal(
        t.zeros(2), t.ones(3, 1), t.ones(2)
    ),
    "lowrank_diag": lambda d, t: d.LowRankMultivariateNormal(t.zeros(2), t.ones(2, 1), t.ones(3)),
    "lowrank_batches": lambda d, t: d.LowRankMultivariateNormal(
        t.zeros(3, 2), t.ones(4, 2, 1), t.ones(2)
    ),
    "von_mises_support": lambda d, t: d.VonMises(0.0, 1.0).log_prob(t.tensor([NAN])),
    "wishart_none": lambda d, t: d.Wishart(3.0),
    "wishart_two": lambda d, t: d.Wishart(3.0, t.eye(2), scale_tril=t.eye(2)),
    "wishart_1d": lambda d, t: d.Wishart(3.0, t.ones(2)),
    "wishart_df": lambda d, t: d.Wishart(t.tensor([3.0, 1.0]), t.eye(3)),
    "wishart_support": lambda d, t: d.Wishart(3.0, t.eye(2)).log_prob(t.ones(2, 2)),
    "lkj_dim": lambda d, t: d.LKJCholesky(1),
    "lkj_support": lambda d, t: d.LKJCholesky(2).log_prob(t.eye(2) * 2),
}


@pytest.mark.parametrize("name", list(BAD_ARGUMENTS))
def test_invalid_arguments_raise_torchs_message(name, torch):
    ours, theirs = (_error(BAD_ARGUMENTS[name], lib) for lib in (dyngrad, torch))
    assert ours == theirs
    assert ours[1].startswith("Expected parameter ")


@pytest.mark.parametrize("name", list(BAD_CALLS))
def test_invalid_calls_raise_torchs_message(name, torch):
    ours, theirs = (_error(BAD_CALLS[name], lib) for lib in (dyngrad, torch))
    assert ours == theirs


NAMES = [
    "StudentT",
    "Gumbel",
    "Geometric",
    "Binomial",
    "Multinomial",
    "NegativeBinomial",
    "Weibull",
    "Pareto",
    "HalfCauchy",
    "Chi2",
    "FisherSnedecor",
    "InverseGamma",
    "VonMises",
    "Kumaraswamy",
    "ContinuousBernoulli",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "LogisticNormal",
    "MixtureSameFamily",
    "LowRankMultivariateNormal",
    "GeneralizedPareto",
    "Wishart",
    "LKJCholesky",
]


@pytest.mark.parametrize("name", NAMES)
def test_class_attributes_match_torch(name, torch):
    ours, theirs = getattr(dyngrad.distributions, name), getattr(torch.distributions, name)
    if isinstance(theirs.arg_constraints, property):  # Wishart's: see its instance test
        assert isinstance(ours.arg_constraints, property)
        return
    assert {k: repr(v) for k, v in ours.arg_constraints.items()} == {
        k: repr(v) for k, v in theirs.arg_constraints.items()
    }
    if not isinstance(theirs.has_rsample, property):  # TransformedDistribution's: its base's
        assert ours.has_rsample == theirs.has_rsample
    assert ours.has_enumerate_support == theirs.has_enumerate_support
    c = dyngrad.distributions.constraints
    if c.is_dependent(ours.support):
        assert torch.distributions.constraints.is_dependent(theirs.support)
    else:
        assert repr(ours.support) == repr(theirs.support)


NUMBER_REPRS = [
    lambda d, t: d.StudentT(3.0),
    lambda d, t: d.Gumbel(0.5, 2.0),
    lambda d, t: d.Geometric(0.3),
    lambda d, t: d.Geometric(logits=0.3),
    lambda d, t: d.Binomial(5, t.tensor(0.3)),
    lambda d, t: d.Multinomial(5, t.tensor([0.3, 0.7])),
    lambda d, t: d.NegativeBinomial(5.0, logits=t.tensor([0.3, 0.7])),
    lambda d, t: d.Weibull(1.0, 2.0),
    lambda d, t: d.Pareto(1.0, 2.0),
    lambda d, t: d.HalfCauchy(1.0),
    lambda d, t: d.Chi2(3.0),
    lambda d, t: d.FisherSnedecor(3.0, 4.0),
    lambda d, t: d.InverseGamma(3.0, 4.0),
    lambda d, t: d.VonMises(0.5, 4.0),
    lambda d, t: d.Kumaraswamy(2.0, 4.0),
    lambda d, t: d.ContinuousBernoulli(0.3),
    lambda d, t: d.RelaxedBernoulli(t.tensor(0.5), logits=0.3),
    lambda d, t: d.RelaxedOneHotCategorical(t.tensor(0.5), t.tensor([0.2, 0.8])),
    lambda d, t: d.LogisticNormal(0.0, 1.0),
    lambda d, t: d.MixtureSameFamily(d.Categorical(t.ones(2)), d.Gumbel(t.zeros(2), t.ones(2))),
    lambda d, t: d.LowRankMultivariateNormal(t.zeros(2), t.ones(2, 1), t.ones(2)),
    lambda d, t: d.GeneralizedPareto(0.0, 1.0, 0.5),
    lambda d, t: d.Wishart(3.0, t.eye(2)),
    lambda d, t: d.Wishart(t.tensor([3.0, 4.0]), precision_matrix=t.eye(2)),
    lambda d, t: d.LKJCholesky(3),
    lambda d, t: d.LKJCholesky(2, 0.5),
]


@pytest.mark.parametrize("make", NUMBER_REPRS)
def test_number_parameters_give_torchs_shapes_dtypes_and_repr(make, torch):
    ours, theirs = make(dyngrad.distributions, dyngrad), make(torch.distributions, torch)
    assert repr(ours) == repr(theirs)
    assert ours.batch_shape == theirs.batch_shape and ours.event_shape == theirs.event_shape
    a, b = ours.sample((2,)), theirs.sample((2,))
    assert tuple(a.shape) == tuple(b.shape) and a.dtype.name == str(b.dtype)[6:]


def test_dependent_supports_check_as_torchs(torch):
    checks = []
    for lib in (dyngrad, torch):
        d = lib.distributions
        value = lib.tensor([[0.0, 1.0], [3.0, 4.0]])
        binomial = d.Binomial(lib.tensor([3.0, 4.0]), probs=lib.tensor([0.5, 0.5]))
        pareto = d.Pareto(lib.tensor([0.5, 2.0]), lib.tensor([1.0, 1.0]))
        gp = d.GeneralizedPareto(lib.zeros(2), lib.ones(2), lib.tensor([-0.5, 0.5]))
        mix = d.MixtureSameFamily(d.Categorical(lib.ones(2)), d.Pareto(lib.ones(2), lib.ones(2)))
        multi = d.Multinomial(3, probs=lib.tensor([0.5, 0.5]))
        checks.append(
            [
                c.check(value).numpy()
                for c in (binomial.support, pareto.support, gp.support, mix.support)
            ]
            + [multi.support.check(lib.tensor([[1.0, 2.0], [2.0, 2.0]])).numpy()]
            + [repr(mix.support), repr(multi.support)]
        )
    for a, b in zip(*checks):
        if isinstance(a, str):
            assert a == b
        else:
            np.testing.assert_array_equal(a, b)


def test_wishart_warnings_and_constraints_match_torch(torch):
    outs = []
    for lib in (dyngrad, torch):
        d = lib.distributions
        with pytest.warns(UserWarning, match="^Low df values detected"):
            low = d.Wishart(lib.tensor(2.5), lib.eye(3))
        # See Note [Wishart's resampling]: PyTorch warns on every rsample
        with pytest.warns(UserWarning, match="^Singular sample detected.$"):
            low.rsample()
        outs.append({k: repr(v) for k, v in low.arg_constraints.items()})
    assert outs[0] == outs[1]
