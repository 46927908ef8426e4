"""The transforms added with the distributions of cases_more.py (softplus, stick breaking,
Cholesky and correlation factors, cat/stack/independent/reshape, a CDF) against torch, and
`biject_to` / `transform_to`."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from . import test_transforms
from .test_transforms import TRANSFORMS, X

M = np.random.default_rng(4).uniform(-1.5, 1.5, (2, 3, 3))

MORE_TRANSFORMS = {
    "softplus": (lambda T, t: T.SoftplusTransform(), X),
    "stick_breaking": (lambda T, t: T.StickBreakingTransform(), X),
    "lower_cholesky": (lambda T, t: T.LowerCholeskyTransform(), M),
    "positive_definite": (lambda T, t: T.PositiveDefiniteTransform(), M),
    "corr_cholesky": (lambda T, t: T.CorrCholeskyTransform(), X),
    "independent": (lambda T, t: T.IndependentTransform(T.ExpTransform(), 1), X),
    "independent_affine": (
        lambda T, t: T.IndependentTransform(T.AffineTransform(1.0, t.tensor([2.0, -1, 3])), 2),
        X,
    ),
    "reshape": (lambda T, t: T.ReshapeTransform((4, 3), (2, 6)), X),
    "cat": (
        lambda T, t: T.CatTransform(
            [T.ExpTransform(), T.AffineTransform(1.0, 2.0), T.SigmoidTransform()], 1, [1, 1, 1]
        ),
        X,
    ),
    "cat_rows": (
        lambda T, t: T.CatTransform([T.ExpTransform(), T.TanhTransform()], 0, [1, 3]),
        X,
    ),
    "cat_vector": (
        lambda T, t: T.CatTransform(
            [T.ExpTransform(), T.IndependentTransform(T.SigmoidTransform(), 1)], 0, [2, 2]
        ),
        X,
    ),
    "stack": (
        lambda T, t: T.StackTransform(
            [T.ExpTransform(), T.AffineTransform(1.0, 2.0), T.SigmoidTransform()], 1
        ),
        X,
    ),
    "cdf": (
        lambda T, t: T.CumulativeDistributionTransform(
            t.distributions.Normal(t.tensor([0.5, -0.2, 0.0]), t.tensor([1.0, 2.0, 0.5]))
        ),
        X,
    ),
}


@pytest.fixture(autouse=True)
def _more_transforms(monkeypatch):
    monkeypatch.setattr(test_transforms, "TRANSFORMS", {**TRANSFORMS, **MORE_TRANSFORMS})


@pytest.mark.parametrize("name", list(MORE_TRANSFORMS))
def test_transform_values_and_gradients_match_torch(name, torch):
    test_transforms.test_transform_values_and_gradients_match_torch(name, torch)


def test_shapes_and_shape_errors_match_torch(torch):
    outs = []
    for lib in (dyngrad, torch):
        T = lib.distributions.transforms
        sb, corr = T.StickBreakingTransform(), T.CorrCholeskyTransform()
        reshape = T.ReshapeTransform((2, 3), (6,))
        shapes = [
            sb.forward_shape((4, 3)),
            sb.inverse_shape((4, 3)),
            corr.forward_shape((5, 6)),
            corr.inverse_shape((5, 4, 4)),
            reshape.forward_shape((7, 2, 3)),
            reshape.inverse_shape((7, 6)),
            T.IndependentTransform(sb, 1).forward_shape((2, 3)),
        ]
        errors = []
        for fn in (
            lambda: corr.forward_shape((5,)),
            lambda: corr.inverse_shape((5, 3, 4)),
            lambda: sb.forward_shape(()),
            lambda: reshape.forward_shape((7, 3, 2)),
            lambda: reshape.inverse_shape(()),
            lambda: T.ReshapeTransform((2, 3), (5,)),
            lambda: T.CatTransform([T.ExpTransform()], 0, [1, 2]),
            lambda: T.CatTransform([T.ExpTransform()], 0, [2])(lib.ones(3)),
            lambda: T.StackTransform([T.ExpTransform()], 0)(lib.ones(3)),
            lambda: T.StackTransform([T.ExpTransform()], 3)(lib.ones(3)),
            lambda: T.IndependentTransform(T.ExpTransform(), 2)(lib.ones(3)),
        ):
            with pytest.raises(Exception) as info:
                fn()
            errors.append((type(info.value).__name__, str(info.value)))
        outs.append((shapes, errors))
    assert [tuple(s) for s in outs[0][0]] == [tuple(s) for s in outs[1][0]]
    assert outs[0][1] == outs[1][1]


def test_attributes_caching_and_equality_match_torch(torch):
    outs = []
    for lib in (dyngrad, torch):
        T = lib.distributions.transforms
        cat = T.CatTransform([T.ExpTransform(), T.StickBreakingTransform()], 0, [1, 2])
        ind = T.IndependentTransform(T.AffineTransform(0.0, -2.0), 1, cache_size=1)
        cdf = T.CumulativeDistributionTransform(lib.distributions.Exponential(lib.ones(2)))
        stack = T.StackTransform([T.ExpTransform(), T.TanhTransform()], 1).with_cache(1)
        x = lib.ones(2)
        y = ind(x)
        outs.append(
            [
                cat.event_dim,
                cat.length,
                cat.bijective,
                ind.sign,
                ind.bijective,
                ind.inv(y) is x,
                stack._cache_size,
                all(t._cache_size == 1 for t in stack.transforms),
                repr(cdf.domain),
                repr(cdf.codomain),
                cdf.sign,
                T.SoftplusTransform() == T.SoftplusTransform(),
                T.StickBreakingTransform() == T.StickBreakingTransform(),
                T.LowerCholeskyTransform() == T.PositiveDefiniteTransform(),
                T.LowerCholeskyTransform().bijective,
                T.CorrCholeskyTransform().bijective,
                T.ReshapeTransform((2,), (1, 2)).with_cache(1)._cache_size,
                repr(T.ReshapeTransform((2,), (1, 2)).domain),
                repr(ind),
                repr(T.StackTransform([T.ExpTransform()], 0).domain),
                repr(cat.codomain),
            ]
        )
    assert outs[0] == outs[1]


CONSTRAINTS = [
    lambda c: c.real,
    lambda c: c.real_vector,
    lambda c: c.positive,
    lambda c: c.nonnegative,
    lambda c: c.greater_than(1.5),
    lambda c: c.greater_than_eq(-1.0),
    lambda c: c.less_than(2.0),
    lambda c: c.unit_interval,
    lambda c: c.interval(-1.0, 3.0),
    lambda c: c.half_open_interval(0.0, 2.0),
    lambda c: c.simplex,
    lambda c: c.lower_cholesky,
    lambda c: c.positive_definite,
    lambda c: c.positive_semidefinite,
    lambda c: c.corr_cholesky,
    lambda c: c.independent(c.positive, 1),
    lambda c: c.cat([c.positive, c.real], 1, [1, 2]),
    lambda c: c.stack([c.positive, c.real, c.unit_interval], 1),
]


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("make", CONSTRAINTS)
def test_constraint_registries_match_torch(make, registry, torch):
    outs = []
    for lib in (dyngrad, torch):
        d = lib.distributions
        constraint = make(d.constraints)
        try:
            transform = getattr(d, registry)(constraint)
        except NotImplementedError as error:
            outs.append(("NotImplementedError", str(error)))
            continue
        x = lib.tensor(np.random.default_rng(8).uniform(-1, 1, (2, 3, 3)))
        if isinstance(transform, d.transforms.ComposeTransform) and not transform.parts:
            y = transform(x)
        else:
            try:
                y = transform(x)
            except (RuntimeError, ValueError):  # CorrCholesky: the vector of 3
                y = transform(x[..., 0, :])
        assert bool(constraint.check(y).all())
        outs.append((repr(transform), y.numpy()))
    assert outs[0][0] == outs[1][0]
    if outs[1][0] != "NotImplementedError":
        np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-12, atol=1e-15)


def test_registry_register_and_errors_match_torch(torch):
    for lib in (dyngrad, torch):
        d = lib.distributions
        registry = d.constraint_registry.ConstraintRegistry()
        with pytest.raises(NotImplementedError, match="^Cannot transform _Real constraints$"):
            registry(d.constraints.real)
        registry.register(d.constraints.real, lambda c: d.transforms.ExpTransform())
        assert isinstance(registry(d.constraints.real), d.transforms.ExpTransform)

        @registry.register(d.constraints.greater_than)
        def _factory(c):
            return d.transforms.AffineTransform(c.lower_bound, 1.0)

        assert registry(d.constraints.greater_than(2.0)).loc == 2.0
        with pytest.raises(TypeError, match="^Expected constraint to be either a Constraint"):
            registry.register(3, lambda c: None)
