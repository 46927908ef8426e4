"""In-place random fills, bernoulli and multinomial: seeding, distributions, nodes, errors."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from .oracle import same

N = 20000

FILLS = [
    "normal_()",
    "normal_(2.0, 0.5)",
    "uniform_()",
    "uniform_(-3, 5)",
    "exponential_(2.0)",
    "cauchy_()",
    "log_normal_()",
    "geometric_(0.3)",
    "random_()",
    "random_(7)",
    "random_(-4, 9)",
    "bernoulli_()",
    "bernoulli_(0.2)",
]


@pytest.mark.parametrize("call", FILLS)
def test_manual_seed_and_generators_reproduce_a_fill(call):
    dyngrad.manual_seed(7)
    a = eval(f"dyngrad.empty(50).{call}")
    dyngrad.manual_seed(7)
    b = eval(f"dyngrad.empty(50).{call}")
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    gen = dyngrad.Generator().manual_seed(3)
    c = eval(f"dyngrad.empty(50).{call[:-1]}{', ' if call[-2] != '(' else ''}generator=gen)")
    gen.manual_seed(3)
    d = eval(f"dyngrad.empty(50).{call[:-1]}{', ' if call[-2] != '(' else ''}generator=gen)")
    np.testing.assert_array_equal(c.numpy(), d.numpy())
    assert not np.array_equal(a.numpy(), c.numpy())


@pytest.mark.parametrize(
    "call,mean,std",
    [
        ("normal_(2.0, 0.5)", 2.0, 0.5),
        ("uniform_(-3, 5)", 1.0, 8 / 12**0.5),
        ("exponential_(2.0)", 0.5, 0.5),
        ("log_normal_(0.0, 0.25)", np.exp(0.25**2 / 2), None),
        ("geometric_(0.25)", 4.0, (0.75 / 0.25**2) ** 0.5),
        ("bernoulli_(0.3)", 0.3, 0.21**0.5),
        ("random_(-4, 9)", 2.0, ((13**2 - 1) / 12) ** 0.5),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fills_have_the_right_moments(call, mean, std, dtype):
    x = eval(f"dyngrad.empty(N, dtype=dyngrad.{dtype}).{call}")
    assert x.dtype is getattr(dyngrad, dtype)
    values = x.numpy().astype(np.float64)
    assert abs(values.mean() - mean) < 0.05 * max(1.0, abs(mean))
    if std is not None:
        assert abs(values.std() - std) < 0.05 * std


def test_fills_stay_in_their_support():
    assert (dyngrad.empty(N).uniform_(-3, 5).numpy() >= -3).all()
    assert (dyngrad.empty(N).uniform_(-3, 5).numpy() < 5).all()
    r = dyngrad.empty(N).random_(-4, 9).numpy()
    assert set(np.unique(r)) == set(range(-4, 9))
    assert set(np.unique(dyngrad.empty(N, dtype=dyngrad.uint8).random_().numpy())) == set(
        range(256)
    )
    assert dyngrad.empty(N, dtype=dyngrad.bool).random_().numpy().mean() == pytest.approx(
        0.5, abs=0.05
    )
    f16 = dyngrad.empty(N, dtype=dyngrad.float16).random_().numpy()
    assert f16.max() <= 2048 and (f16 == np.round(f16)).all()
    assert (dyngrad.empty(N, dtype=dyngrad.int8).random_(-100, None).numpy() >= -100).all()
    assert (dyngrad.empty(100).geometric_(0.5).numpy() >= 1).all()
    assert (dyngrad.empty(100).exponential_().numpy() > 0).all()


def test_bernoulli_probabilities_zero_and_one_are_exact():
    p = dyngrad.tensor([0.0, 1.0] * 500)
    np.testing.assert_array_equal(dyngrad.bernoulli(p).numpy(), p.numpy())
    np.testing.assert_array_equal(dyngrad.zeros(1000).bernoulli_(p).numpy(), p.numpy())
    assert dyngrad.bernoulli(dyngrad.zeros(3, dtype=dyngrad.float64)).dtype is dyngrad.float64
    assert dyngrad.zeros(1000).bernoulli(1.0).numpy().all()


def test_multinomial_without_replacement_draws_distinct_categories():
    probs = dyngrad.tensor([[0.0, 1.0, 2.0, 3.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]])
    for _ in range(20):
        draw = dyngrad.multinomial(probs, 3).numpy()
        assert draw.shape == (2, 3) and draw.dtype == np.int64
        assert sorted(draw[0]) == [1, 2, 3]
        assert len(set(draw[1])) == 3
    # once the non-zero categories are used up, zero-probability ones follow
    assert sorted(dyngrad.multinomial(dyngrad.tensor([0.0, 1.0, 0.0]), 2).tolist())[1] == 1


def test_multinomial_frequencies_follow_the_weights():
    probs = dyngrad.tensor([1.0, 2.0, 7.0])
    draws = dyngrad.multinomial(probs, N, replacement=True).numpy()
    np.testing.assert_allclose(np.bincount(draws, minlength=3) / N, [0.1, 0.2, 0.7], atol=0.02)
    first = [dyngrad.multinomial(probs, 1).item() for _ in range(2000)]
    np.testing.assert_allclose(np.bincount(first, minlength=3) / 2000, [0.1, 0.2, 0.7], atol=0.04)


@pytest.mark.parametrize(
    "call",
    FILLS[:8]
    + [
        "random_(0, 5)",
        "random_(5)",
        "random_()",
        "bernoulli_(0.5)",
        "bernoulli_(p)",
        "zero_()",
        "fill_(1.0)",
        "fill_(p[0])",
    ],
)
def test_inplace_fill_nodes_match_torch(torch, call):
    for t in (dyngrad, torch):
        x = t.zeros(3, requires_grad=True)
        p = t.full((3,), 0.5)
        y = eval(f"(x * 1).{call}", {"x": x, "p": p})
        (g,) = t.autograd.grad(y.sum(), x)
        assert not g.numpy().any()
        if t is dyngrad:
            ours = y.grad_fn.name()
    assert ours == y.grad_fn.name()


def test_bernoulli_nodes_match_torch(torch):
    for t in (dyngrad, torch):
        p = t.full((3,), 0.5, requires_grad=True)
        y = t.bernoulli(p)
        assert y.grad_fn.name() == "BernoulliBackward0"
        (g,) = t.autograd.grad(y.sum(), p)
        assert not g.numpy().any()
        assert p.bernoulli(0.3).grad_fn.name() == "torch::autograd::NotImplemented"


ERRORS = [
    "f.normal_(0, -1)",
    "i.normal_()",
    "i.uniform_()",
    "f.uniform_(2, 1)",
    "f.exponential_(-1)",
    "f.exponential_(0)",
    "i.exponential_()",
    "f.bernoulli_(1.5)",
    "f.bernoulli_(-0.1)",
    "t.bernoulli(t.tensor([1.5]))",
    "t.bernoulli(i)",
    "f.random_(3, 3)",
    "f.random_(0)",
    "t.multinomial(t.ones(2, 2, 2), 1)",
    "t.multinomial(t.ones(3), 4)",
    "t.multinomial(t.tensor([-1.0, 2.0]), 1)",
    "t.multinomial(t.tensor([0.0, 0.0]), 1)",
    "t.multinomial(t.tensor([float('nan'), 1.0]), 1)",
    "t.multinomial(t.tensor([float('inf'), 1.0]), 1)",
    "t.multinomial(i, 1)",
    "t.multinomial(f, 0)",
    "t.multinomial(f, -1)",
    "t.multinomial(t.ones(0), 1)",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_bad_arguments_raise_torch_errors(torch, expr):
    same(torch, expr, f=np.ones(3, np.float32), i=np.ones(3, np.int64))


def test_multinomial_and_random_results_carry_no_gradient(torch):
    same(torch, "t.multinomial(f, 2).requires_grad", requires_grad=True, f=np.ones(3))
    same(torch, "str(t.multinomial(f, 2).dtype)", f=np.ones(3))
    same(torch, "t.multinomial(f, 5, replacement=True).shape", f=np.ones((2, 3)))
