"""The old nn.utils.weight_norm and its ops (norm_except_dim, _weight_norm) against torch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad

from .parity import assert_same

R = np.random.default_rng(21)

MESSAGE = (
    "`torch.nn.utils.weight_norm` is deprecated in favor of "
    "`torch.nn.utils.parametrizations.weight_norm`."
)


def _tree(fn) -> list:
    if fn is None:
        return [None]
    return [type(fn).__name__] + [n for f, _ in fn.next_functions for n in _tree(f)]


@pytest.mark.parametrize("dim", [0, 1, 2, 3, -1])
def test_norm_except_dim_matches_torch(dim, torch):
    array = R.standard_normal((3, 2, 4, 2))
    results = []
    for lib in (dyngrad, torch):
        v = lib.tensor(array, requires_grad=True)
        n = lib.norm_except_dim(v, 2, dim)
        n.pow(3).sum().backward()
        results.append((n.detach().numpy(), v.grad.numpy(), _tree(n.grad_fn)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    assert results[0][2] == results[1][2]


@pytest.mark.parametrize("dim", [0, 1, 2, 3, -1])
def test_weight_norm_op_matches_torch(dim, torch):
    array = R.standard_normal((3, 2, 4, 2))
    results = []
    for lib in (dyngrad, torch):
        v = lib.tensor(array, requires_grad=True)
        g = (lib.norm_except_dim(v, 2, dim).detach() * 1.5).requires_grad_()
        w = lib._weight_norm(v, g, dim)
        (w * w * w).sum().backward()
        results.append((w.detach().numpy(), v.grad.numpy(), g.grad.numpy(), _tree(w.grad_fn)))
    for mine, theirs in zip(results[0][:3], results[1][:3]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)
    assert results[0][3] == results[1][3]


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_weight_norm_op_passes_gradgradcheck(dim):
    # (PyTorch's fused node, at dims 0 and last, fails gradgradcheck itself: its double
    # backward holds the norms fixed; this one's formulas differentiate through them)
    v = dyngrad.randn(3, 2, 3, dtype=dyngrad.float64, requires_grad=True)
    g = (dyngrad.norm_except_dim(v, 2, dim).detach() + 0.5).requires_grad_()

    def fn(v, g):
        return dyngrad._weight_norm(v, g, dim)

    assert dyngrad.autograd.gradcheck(fn, (v, g))
    assert dyngrad.autograd.gradgradcheck(fn, (v, g))


def _twins(torch, make, dim):
    pair = []
    for lib in (torch, dyngrad):
        module = make(lib.nn).double()
        with lib.no_grad():
            for i, p in enumerate(module.parameters()):
                p.copy_(lib.tensor(np.random.default_rng(i).standard_normal(tuple(p.shape))))
        with pytest.warns(FutureWarning) as caught:
            lib.nn.utils.weight_norm(module, dim=dim)
        assert str(caught[0].message) == MESSAGE
        pair.append(module)
    return pair


@pytest.mark.parametrize(
    "make,dim,shape",
    [
        (lambda nn: nn.Linear(3, 4), 0, (5, 3)),
        (lambda nn: nn.Linear(3, 4), 1, (5, 3)),
        (lambda nn: nn.Conv2d(2, 3, 3), None, (1, 2, 5, 5)),
        (lambda nn: nn.Conv2d(2, 3, 3), 1, (1, 2, 5, 5)),
    ],
)
def test_weight_norm_module_matches_torch(make, dim, shape, torch):
    theirs, ours = _twins(torch, make, dim)
    names = [(n, tuple(p.shape)) for n, p in ours.named_parameters()]
    assert names == [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert_same(torch, (theirs, ours), [R.standard_normal(shape)])
    assert type(ours.weight.grad_fn).__name__ == type(theirs.weight.grad_fn).__name__
    assert repr(ours) == repr(theirs)
    torch.nn.utils.remove_weight_norm(theirs)
    dyngrad.nn.utils.remove_weight_norm(ours)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert not ours._forward_pre_hooks and ours.weight.grad_fn is None
    assert_same(torch, (theirs, ours), [R.standard_normal(shape)])


def test_weight_norm_state_dict_round_trip():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        first = dyngrad.nn.utils.weight_norm(dyngrad.nn.Linear(3, 2))
        second = dyngrad.nn.utils.weight_norm(dyngrad.nn.Linear(3, 2))
    second.load_state_dict(first.state_dict())
    x = dyngrad.randn(4, 3)
    np.testing.assert_array_equal(first(x).detach().numpy(), second(x).detach().numpy())


def test_weight_norm_errors(lib):
    module = lib.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in Linear"):
        lib.nn.utils.remove_weight_norm(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        lib.nn.utils.weight_norm(module)
        with pytest.raises(
            RuntimeError, match="Cannot register two weight_norm hooks on the same parameter weight"
        ):
            lib.nn.utils.weight_norm(module)
        lib.nn.utils.weight_norm(module, name="bias")
    assert tuple(module.bias_g.shape) == (2,)
