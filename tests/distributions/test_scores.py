"""log_prob, entropy, moments, cdf and icdf of every distribution, and their gradients w.r.t. the
parameters, against torch on the same parameter values."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from .cases import CASES, IDS

GAMMA_CDFS = ("gamma", "chi2", "inverse_gamma")  # cdf through igamma in the concentration
QUANTITIES = {
    "log_prob": lambda d, case, lib: d.log_prob(case.value_tensor(lib)),
    "entropy": lambda d, case, lib: d.entropy(),
    "mean": lambda d, case, lib: d.mean,
    "variance": lambda d, case, lib: d.variance,
    "stddev": lambda d, case, lib: d.stddev,
    "perplexity": lambda d, case, lib: d.perplexity(),
    "cdf": lambda d, case, lib: d.cdf(case.value_tensor(lib)),
    "icdf": lambda d, case, lib: d.icdf(lib.tensor(case.unit_value, dtype=lib.float64)),
}


def _evaluate(case, name, lib):
    dist, params = case.construct(lib)
    if name == "icdf" and case.unit_value is None:
        return params, NotImplementedError
    try:
        return params, QUANTITIES[name](dist, case, lib)
    except NotImplementedError:
        return params, NotImplementedError


def _weights(shape):
    return np.random.default_rng(7).uniform(0.5, 1.5, tuple(shape))


@pytest.mark.parametrize("name", list(QUANTITIES))
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_quantity_and_its_gradients_match_torch(case, name, torch):
    theirs_params, theirs = _evaluate(case, name, torch)
    ours_params, ours = _evaluate(case, name, dyngrad)
    if theirs is NotImplementedError:
        assert ours is NotImplementedError
        return
    assert ours is not NotImplementedError, f"{case.name}.{name} is missing"
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype).replace("torch.", "")
    np.testing.assert_allclose(
        ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-9, atol=1e-12
    )
    if not theirs.requires_grad or name == "cdf" and case.name in GAMMA_CDFS:
        return  # Gamma.cdf: the derivative w.r.t. the concentration is not implemented
    w = _weights(theirs.shape)
    (theirs * torch.tensor(w)).sum().backward()
    (ours * dyngrad.tensor(w)).sum().backward()
    for p_ours, p_theirs in zip(ours_params, theirs_params):
        assert (p_ours.grad is None) == (p_theirs.grad is None)
        if p_theirs.grad is not None:
            np.testing.assert_allclose(
                p_ours.grad.numpy(), p_theirs.grad.numpy(), rtol=1e-8, atol=1e-11
            )


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_mode_matches_torch(case, torch):
    try:
        theirs = case.build(torch, requires_grad=False).mode
    except NotImplementedError as error:
        with pytest.raises(NotImplementedError) as ours_error:
            case.build(dyngrad, requires_grad=False).mode  # noqa: B018
        assert (
            str(ours_error.value).split("'")[1].split(".")[-1]
            == str(error).split("'")[1].split(".")[-1]
        )
        return
    ours = case.build(dyngrad, requires_grad=False).mode
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    assert ours.dtype.name == str(theirs.dtype).replace("torch.", "")


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.name.startswith(("bern", "categ"))], ids=lambda c: c.name
)
def test_enumerate_support_matches_torch(case, torch):
    for expand in (True, False):
        theirs = case.build(torch).enumerate_support(expand=expand)
        ours = case.build(dyngrad).enumerate_support(expand=expand)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        assert ours.dtype.name == str(theirs.dtype).replace("torch.", "")


def test_scalar_parameters_give_scalar_batch_shape(torch):
    for lib in (dyngrad, torch):
        d = lib.distributions.Normal(0.5, 2.0)
        assert d.batch_shape == lib.Size([]) and d.loc.dtype == lib.float32
        assert d.log_prob(lib.tensor(1.0)).shape == lib.Size([])
    assert repr(dyngrad.distributions.Normal(0.5, 2.0)) == repr(
        torch.distributions.Normal(0.5, 2.0)
    )
