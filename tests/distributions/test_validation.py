"""Argument and sample validation (messages as torch's), reprs, expand, and the constraints."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad

from .cases import CASES, IDS

NAN = float("nan")

# (constructor from (lib.distributions, lib)); each builds a distribution with a bad argument
BAD_ARGUMENTS = {
    "normal_scale": lambda d, t: d.Normal(t.tensor([0.0, 1.0, 2.0]), t.tensor([1.0, -2.0, 3.0])),
    "normal_loc_nan": lambda d, t: d.Normal(t.tensor([NAN, 1.0]), t.tensor([1.0, 2.0])),
    "bernoulli_probs": lambda d, t: d.Bernoulli(probs=t.tensor([0.5, 1.5])),
    "bernoulli_logits": lambda d, t: d.Bernoulli(logits=t.tensor([NAN])),
    "categorical": lambda d, t: d.Categorical(probs=t.tensor([[0.5, -0.1, 0.6]])),
    "categorical_logits": lambda d, t: d.Categorical(logits=t.tensor([[0.5, NAN]])),
    "one_hot": lambda d, t: d.OneHotCategorical(probs=t.tensor([0.5, -0.1, 0.6])),
    "uniform": lambda d, t: d.Uniform(t.tensor([1.0, 2.0]), t.tensor([0.0, 3.0])),
    "beta": lambda d, t: d.Beta(t.tensor([-1.0, 2.0]), t.tensor([1.0, 2.0])),
    "gamma_numbers": lambda d, t: d.Gamma(-1.0, 1.0),
    "dirichlet": lambda d, t: d.Dirichlet(t.tensor([[1.0, -1.0]])),
    "exponential": lambda d, t: d.Exponential(t.tensor([0.0, 1.0])),
    "laplace": lambda d, t: d.Laplace(0.0, t.tensor([-1.0])),
    "mvn_not_pd": lambda d, t: d.MultivariateNormal(
        t.zeros(2), covariance_matrix=t.tensor([[1.0, 2.0], [2.0, 1.0]])
    ),
    "mvn_not_symmetric": lambda d, t: d.MultivariateNormal(
        t.zeros(2), precision_matrix=t.tensor([[1.0, 0.5], [0.0, 1.0]])
    ),
    "mvn_scale_tril": lambda d, t: d.MultivariateNormal(
        t.zeros(2), scale_tril=t.tensor([[1.0, 0.5], [0.0, 1.0]])
    ),
    "mvn_loc": lambda d, t: d.MultivariateNormal(t.tensor([NAN, 0.0]), scale_tril=t.eye(2)),
}

BAD_CALLS = {
    "bernoulli_neither": lambda d, t: d.Bernoulli(),
    "bernoulli_both": lambda d, t: d.Bernoulli(probs=t.tensor(0.5), logits=t.tensor(0.0)),
    "categorical_0d": lambda d, t: d.Categorical(probs=t.tensor(0.5)),
    "categorical_logits_0d": lambda d, t: d.Categorical(logits=t.tensor(0.5)),
    "dirichlet_0d": lambda d, t: d.Dirichlet(t.tensor(1.0)),
    "mvn_none": lambda d, t: d.MultivariateNormal(t.zeros(2)),
    "mvn_two": lambda d, t: d.MultivariateNormal(t.zeros(2), t.eye(2), scale_tril=t.eye(2)),
    "mvn_loc_0d": lambda d, t: d.MultivariateNormal(t.tensor(0.0), t.eye(2)),
    "mvn_tril_1d": lambda d, t: d.MultivariateNormal(t.zeros(2), scale_tril=t.ones(2)),
    "mvn_cov_1d": lambda d, t: d.MultivariateNormal(t.zeros(2), covariance_matrix=t.ones(2)),
    "independent": lambda d, t: d.Independent(d.Normal(t.zeros(3), t.ones(3)), 2),
    "log_prob_number": lambda d, t: d.Normal(0.0, 1.0).log_prob(1.0),
    "log_prob_event": lambda d, t: d.MultivariateNormal(t.zeros(3), t.eye(3)).log_prob(t.zeros(2)),
    "log_prob_batch": lambda d, t: d.Normal(t.zeros(3), t.ones(3)).log_prob(t.zeros(4)),
    "log_prob_support": lambda d, t: d.Bernoulli(t.tensor([0.3])).log_prob(t.tensor([0.5])),
    "log_prob_negative": lambda d, t: d.Gamma(t.ones(2), t.ones(2)).log_prob(-t.ones(2)),
    "log_prob_category": lambda d, t: d.Categorical(t.ones(3)).log_prob(t.tensor([3])),
    "cdf_support": lambda d, t: d.Exponential(t.ones(2)).cdf(-t.ones(2)),
    "default_validate": lambda d, t: d.Distribution.set_default_validate_args("yes"),
}


def _error(fn, lib):
    with pytest.raises(Exception) as info:
        fn(lib.distributions, lib)
    return type(info.value).__name__, str(info.value)


@pytest.mark.parametrize("name", list(BAD_ARGUMENTS))
def test_invalid_arguments_raise_torchs_message(name, torch):
    ours, theirs = (_error(BAD_ARGUMENTS[name], lib) for lib in (dyngrad, torch))
    assert ours == theirs
    assert ours[1].startswith("Expected parameter ")


@pytest.mark.parametrize("name", list(BAD_CALLS))
def test_invalid_calls_raise_torchs_message(name, torch):
    ours, theirs = (_error(BAD_CALLS[name], lib) for lib in (dyngrad, torch))
    assert ours == theirs


def test_validation_can_be_turned_off(torch):
    for lib in (dyngrad, torch):
        d = lib.distributions
        scale = lib.tensor([-1.0])
        assert d.Normal(0.0, scale, validate_args=False).scale.item() == -1.0
        d.Distribution.set_default_validate_args(False)
        try:
            bern = d.Bernoulli(probs=lib.tensor([1.5]))
            assert bern.log_prob(lib.tensor([0.5])).shape == (1,)
        finally:
            d.Distribution.set_default_validate_args(True)
        with pytest.raises(ValueError):
            d.Bernoulli(probs=lib.tensor([1.5]))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_repr_matches_torch(case, torch):
    assert repr(case.build(dyngrad)) == repr(case.build(torch))


def test_reprs_of_number_and_logits_parameters_match_torch(torch):
    for make in (
        lambda d, t: d.Normal(0.5, 2.0),
        lambda d, t: d.Bernoulli(logits=t.zeros(3)),
        lambda d, t: d.Gamma(t.ones(1), 2.0),
        lambda d, t: d.Beta(1.0, 2.0),
        lambda d, t: d.Uniform(t.zeros(()), t.ones(())),
        lambda d, t: d.MultivariateNormal(t.zeros(2), precision_matrix=t.eye(2)),
    ):
        assert repr(make(dyngrad.distributions, dyngrad)) == repr(make(torch.distributions, torch))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_expand_matches_torch(case, torch):
    outs = []
    for lib in (dyngrad, torch):
        dist = case.build(lib, requires_grad=False)
        batch = lib.Size((2,)) + dist.batch_shape
        expanded = dist.expand(batch)
        value = case.value_tensor(lib)
        value = value.unsqueeze(value.dim() - len(dist.batch_shape) - len(dist.event_shape))
        outs.append(
            (
                tuple(expanded.batch_shape),
                tuple(expanded.event_shape),
                expanded.log_prob(value).numpy(),
                expanded._validate_args,
                tuple(expanded.sample().shape),
            )
        )
    ours, theirs = outs
    assert ours[:2] == theirs[:2] and ours[3:] == theirs[3:]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-10)


def test_sample_n_is_deprecated(torch):
    for lib in (dyngrad, torch):
        with pytest.warns(FutureWarning, match=r"`sample_n\(n\)` will be deprecated"):
            assert lib.distributions.Normal(0.0, 1.0).sample_n(3).shape == (3,)


CONSTRAINT_VALUES = [
    [[0.5, -1.0], [2.0, NAN]],
    [[0.0, 1.0], [1.0, 0.0]],
    [[2.0, 0.0], [1.0, 3.0]],
    [[2.0, 1.0], [1.0, 3.0]],
    [[0.3, 0.7], [0.1, 0.9]],
    [[1.0, 2.0], [2.0, 1.0]],
]


def _constraints(c):
    return [
        c.real,
        c.positive,
        c.nonnegative,
        c.unit_interval,
        c.boolean,
        c.simplex,
        c.one_hot,
        c.nonnegative_integer,
        c.positive_integer,
        c.real_vector,
        c.lower_triangular,
        c.lower_cholesky,
        c.positive_definite,
        c.positive_semidefinite,
        c.symmetric,
        c.square,
        c.corr_cholesky,
        c.integer_interval(0, 2),
        c.interval(-1.0, 1.0),
        c.half_open_interval(0.0, 1.0),
        c.greater_than(0.5),
        c.greater_than_eq(0.5),
        c.less_than(1.0),
        c.independent(c.positive, 1),
        c.multinomial(3),
        c.cat([c.real, c.positive], 1, [1, 1]),
        c.stack([c.real, c.positive], 1),
    ]


def test_constraints_check_and_repr_as_torchs(torch):
    ours, theirs = (
        _constraints(dyngrad.distributions.constraints),
        _constraints(torch.distributions.constraints),
    )
    for a, b in zip(ours, theirs):
        assert repr(a) == repr(b)
        assert (a.event_dim, a.is_discrete) == (b.event_dim, b.is_discrete)
        for value in CONSTRAINT_VALUES:
            got = a.check(dyngrad.tensor(value, dtype=dyngrad.float64))
            want = b.check(torch.tensor(value, dtype=torch.float64))
            np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=repr(b))


def test_dependent_constraints_as_torchs(torch):
    for lib in (dyngrad, torch):
        c = lib.distributions.constraints
        assert c.is_dependent(c.dependent) and not c.is_dependent(c.real)
        with pytest.raises(ValueError, match="Cannot determine validity of dependent"):
            c.dependent.check(lib.zeros(1))
        with pytest.raises(NotImplementedError, match=r"\.event_dim cannot be determined"):
            c.dependent.event_dim  # noqa: B018
        assert c.dependent(is_discrete=True, event_dim=1).event_dim == 1
        support = lib.distributions.Uniform.support
        assert c.is_dependent(support) and support.event_dim == 0


def test_missing_arg_constraints_warns(torch):
    for lib in (dyngrad, torch):

        class Custom(lib.distributions.Distribution):
            pass

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Custom(validate_args=True)
        assert "does not define `arg_constraints`" in str(caught[0].message)
