"""RReLU, AlphaDropout and FeatureAlphaDropout modules: training draws PyTorch's numbers after
the same seed, eval mode is deterministic, gradients follow the drawn slopes and masks."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

X = np.random.default_rng(2).standard_normal((3, 4, 5))

MODULES = [
    "RReLU()",
    "RReLU(0.05, 0.6)",
    "AlphaDropout(0.3)",
    "FeatureAlphaDropout(0.4)",
]


def _run(lib, make, train: bool, seed=5):
    lib.manual_seed(seed)
    m = eval("lib.nn." + make, {"lib": lib})
    m.train(train)
    x = lib.tensor(X, requires_grad=True)
    out = m(x)
    out.backward(lib.tensor(X[::-1].copy()))
    name = out.grad_fn.name() if out.grad_fn is not None else None
    return out.detach().numpy(), x.grad.numpy(), name


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("make", MODULES)
def test_random_modules_match_torch(torch, make, train):
    ours, theirs = _run(dyngrad, make, train), _run(torch, make, train)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, atol=1e-12)
    assert ours[2] == theirs[2]


@pytest.mark.parametrize("make", ["RReLU(inplace=True)", "AlphaDropout(0.5, inplace=True)"])
def test_inplace_random_modules_match_torch(torch, make):
    results = []
    for lib in (dyngrad, torch):
        lib.manual_seed(9)
        m = eval("lib.nn." + make, {"lib": lib})
        x = lib.tensor(X, requires_grad=True)
        y = x * 1.0
        out = m(y)
        assert (out is y) == ("RReLU" in make)  # torch's AlphaDropout ignores `inplace`
        out.sum().backward()
        results.append((out.detach().numpy(), x.grad.numpy(), out.grad_fn.name()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    assert results[0][2] == results[1][2]


def test_rrelu_eval_passes_gradcheck_and_gradgradcheck():
    x = dyngrad.tensor(X + 0.05, requires_grad=True)  # away from the kink at 0
    m = dyngrad.nn.RReLU().eval()
    assert dyngrad.autograd.gradcheck(m, (x,))
    assert dyngrad.autograd.gradgradcheck(m, (x,))
