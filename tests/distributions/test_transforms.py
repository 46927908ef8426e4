"""Transforms: forward, inverse and log |det J| with their gradients, domains, signs, caching and
composition, against torch."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

X = np.random.default_rng(3).uniform(-1.5, 1.5, (4, 3))

TRANSFORMS = {
    "exp": (lambda T, t: T.ExpTransform(), X),
    "sigmoid": (lambda T, t: T.SigmoidTransform(), X),
    "tanh": (lambda T, t: T.TanhTransform(), X),
    "abs": (lambda T, t: T.AbsTransform(), X),
    "power": (lambda T, t: T.PowerTransform(t.tensor([0.5, 2.0, 3.0])), np.abs(X) + 0.1),
    "affine": (lambda T, t: T.AffineTransform(t.tensor([0.5, -1.0, 0.0]), -2.0), X),
    "affine_event": (lambda T, t: T.AffineTransform(1.0, t.tensor([2.0, -3.0, 0.5]), 1), X),
    "softmax": (lambda T, t: T.SoftmaxTransform(), X),
    "compose": (
        lambda T, t: T.ComposeTransform(
            [T.AffineTransform(0.0, 0.5), T.TanhTransform(), T.AffineTransform(1.0, 3.0)]
        ),
        X,
    ),
    "inverse": (lambda T, t: T.ExpTransform().inv, np.abs(X) + 0.1),
}


def _run(lib, name):
    make, x = TRANSFORMS[name]
    transform = make(lib.distributions.transforms, lib)
    x = lib.tensor(x, dtype=lib.float32, requires_grad=True)
    y = transform(x)
    out = {"y": y, "x_back": transform.inv(y.detach())}
    try:
        out["ladj"] = transform.log_abs_det_jacobian(x, y)
    except NotImplementedError:
        out["ladj"] = None
    total = y.sum() + (out["ladj"].sum() if out["ladj"] is not None else 0)
    total.backward()
    out["grad"] = x.grad
    return transform, out


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_values_and_gradients_match_torch(name, torch):
    ours_t, ours = _run(dyngrad, name)
    theirs_t, theirs = _run(torch, name)
    for key in ("y", "x_back", "ladj", "grad"):
        if theirs[key] is None:
            assert ours[key] is None
            continue
        np.testing.assert_allclose(
            ours[key].detach().numpy(),
            theirs[key].detach().numpy(),
            rtol=1e-5,
            atol=1e-6,
            err_msg=key,
        )
    assert repr(ours_t) == repr(theirs_t)
    assert repr(ours_t.domain) == repr(theirs_t.domain)
    assert repr(ours_t.codomain) == repr(theirs_t.codomain)
    assert ours_t.bijective == theirs_t.bijective
    if theirs_t.bijective:
        try:
            theirs_sign = theirs_t.sign
        except NotImplementedError:  # no constant sign (a vector-valued map)
            with pytest.raises(NotImplementedError):
                ours_t.sign  # noqa: B018
            return
        ours_sign = ours_t.sign
        if hasattr(theirs_sign, "numpy"):
            np.testing.assert_array_equal(ours_sign.numpy(), theirs_sign.numpy())
        else:
            assert ours_sign == theirs_sign


def test_cached_transform_inverts_its_own_output_exactly(torch):
    for lib in (dyngrad, torch):
        T = lib.distributions.transforms
        tanh = T.TanhTransform(cache_size=1)
        x = lib.tensor([30.0])  # tanh(30) rounds to 1: atanh(1) is inf without the cache
        y = tanh(x)
        assert tanh.inv(y) is x
        assert float(T.TanhTransform().inv(y)) == float("inf")
        assert tanh.inv.inv is tanh and T.ExpTransform().with_cache(1)._cache_size == 1
        with pytest.raises(ValueError, match="^cache_size must be 0 or 1$"):
            T.ExpTransform(cache_size=2)


def test_transform_equality_and_event_dims_match_torch(torch):
    for lib in (dyngrad, torch):
        T = lib.distributions.transforms
        assert T.ExpTransform() == T.ExpTransform() and T.ExpTransform() != T.SigmoidTransform()
        assert T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0)
        assert T.ExpTransform().inv == T.ExpTransform().inv
        compose = T.ComposeTransform([T.SoftmaxTransform(), T.ExpTransform()])
        assert (compose.domain.event_dim, compose.codomain.event_dim) == (1, 1)
        assert T.AffineTransform(0.0, 1.0, event_dim=2).event_dim == 2
        assert T.SoftmaxTransform().event_dim == 1 and T.ExpTransform().event_dim == 0
        assert T.identity_transform(lib.ones(2)).tolist() == [1.0, 1.0]


def test_transformed_distribution_shapes_and_errors_match_torch(torch):
    outs = []
    for lib in (dyngrad, torch):
        D = lib.distributions
        base = D.Normal(lib.zeros(2, 3), lib.ones(2, 3))
        d = D.TransformedDistribution(base, [D.transforms.SoftmaxTransform()])
        outs.append((tuple(d.batch_shape), tuple(d.event_shape), repr(d.support)))
        with pytest.raises(ValueError) as info:
            D.TransformedDistribution(base, "exp")
        outs.append(str(info.value))
        with pytest.raises(ValueError) as info:
            D.TransformedDistribution(D.Normal(0.0, 1.0), D.transforms.SoftmaxTransform())
        outs.append(str(info.value))
        expanded = D.LogNormal(lib.zeros(3), lib.ones(3)).expand((2, 3))
        outs.append((type(expanded).__name__, tuple(expanded.batch_shape)))
    assert outs[:4] == outs[4:]
