"""Optimizers step for step against PyTorch, from the same weights on the same problem."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import dyngrad
from dyngrad import optim

CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.02, "betas": (0.8, 0.99), "eps": 1e-6, "maximize": True}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.3}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "centered": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5, "centered": True, "alpha": 0.9, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "initial_accumulator_value": 0.1}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "eps": 1e-6, "maximize": True}),
]
IDS = [f"{name}-{'-'.join(map(str, kw.values()))}" for name, kw in CONFIGS]


def _weights(dtype=np.float32):
    rng = np.random.default_rng(1)
    return [rng.standard_normal((4, 3)).astype(dtype), rng.standard_normal(3).astype(dtype)]


def _loss(t, x, w, b):
    # A tiny MLP made of basic ops: tanh layer, then a quadratic read-out.
    h = (x @ w + b).tanh()
    return ((h - 0.5) ** 2).sum() + (w * w).sum() * 0.01


def _run(t, name, kwargs, weights, steps=20):
    x = t.tensor(np.random.default_rng(2).standard_normal((5, 4)).astype(weights[0].dtype))
    params = [t.tensor(w.copy(), requires_grad=True) for w in weights]
    opt = getattr(t.optim, name)(params, **kwargs)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        _loss(t, x, *params).backward()
        opt.step()
        history.append([p.detach().numpy().copy() for p in params])
    return history, opt


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=IDS)
def test_twenty_steps_match_torch(torch, name, kwargs):
    weights = _weights()
    ours, _ = _run(dyngrad, name, kwargs, weights)
    theirs, _ = _run(torch, name, kwargs, weights)
    for step, (a, b) in enumerate(zip(ours, theirs)):
        for pa, pb in zip(a, b):
            np.testing.assert_allclose(pa, pb, rtol=1e-5, atol=1e-7, err_msg=f"step {step}")


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_float64_parameters_match_torch(torch, name):
    kwargs = dict(CONFIGS[[n for n, _ in CONFIGS].index(name) + 1][1])
    weights = _weights(np.float64)
    ours, _ = _run(dyngrad, name, kwargs, weights)
    theirs, _ = _run(torch, name, kwargs, weights)
    for pa, pb in zip(ours[-1], theirs[-1]):
        assert pa.dtype == np.float64
        np.testing.assert_allclose(pa, pb, rtol=1e-12)


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS[1::3], ids=IDS[1::3])
def test_state_dict_matches_torch(torch, name, kwargs):
    _, ours = _run(dyngrad, name, kwargs, _weights(), steps=3)
    _, theirs = _run(torch, name, kwargs, _weights(), steps=3)
    a, b = ours.state_dict(), theirs.state_dict()
    assert a["param_groups"] == b["param_groups"]
    assert list(a["state"]) == list(b["state"])
    for index, state in b["state"].items():
        assert list(a["state"][index]) == list(state)
        for key, value in state.items():
            mine = a["state"][index][key]
            assert mine.dtype.name == str(value.dtype).split(".")[1]
            np.testing.assert_allclose(mine.numpy(), value.numpy(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS[1::2], ids=IDS[1::2])
def test_load_state_dict_resumes_the_same_trajectory(name, kwargs):
    weights = _weights()
    straight, _ = _run(dyngrad, name, kwargs, weights, steps=6)
    x = dyngrad.tensor(np.random.default_rng(2).standard_normal((5, 4)).astype(np.float32))
    params = [dyngrad.tensor(w.copy(), requires_grad=True) for w in weights]
    opt = getattr(optim, name)(params, **kwargs)
    for i in range(6):
        if i == 3:  # a fresh optimizer, restored from a deep copy of the saved state
            saved = copy.deepcopy(opt.state_dict())
            opt = getattr(optim, name)(params, **kwargs)
            opt.load_state_dict(saved)
        opt.zero_grad()
        _loss(dyngrad, x, *params).backward()
        opt.step()
    for pa, pb in zip(straight[-1], params):
        np.testing.assert_array_equal(pa, pb.detach().numpy())


def test_param_groups_use_their_own_hyperparameters(torch):
    def run(t):
        w = t.tensor([1.0, -2.0], requires_grad=True)
        b = t.tensor([0.5], requires_grad=True)
        opt = t.optim.SGD([{"params": [w]}, {"params": b, "lr": 0.5, "momentum": 0.9}], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            ((w * w).sum() + (b * w).sum()).backward()
            opt.step()
        return w.detach().numpy(), b.detach().numpy(), opt.param_groups[1]["momentum"]

    for a, b in zip(run(dyngrad), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_parameters_without_grad_are_skipped():
    w = dyngrad.ones(2, requires_grad=True)
    unused = dyngrad.ones(2, requires_grad=True)
    opt = optim.Adam([w, unused], lr=0.1)
    (w * 2).sum().backward()
    opt.step()
    assert unused.tolist() == [1.0, 1.0]
    assert list(opt.state_dict()["state"]) == [0]


def test_step_runs_closure_with_grad_enabled_and_returns_its_loss():
    w = dyngrad.tensor([3.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with dyngrad.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 9.0
    assert w.tolist() == [1.5]


def test_step_writes_in_place_and_bumps_the_version():
    w = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    array, version = w._data, w._version
    opt = optim.SGD([w], lr=0.5)
    (w * w).sum().backward()
    opt.step()
    assert w._data is array
    assert w.tolist() == [0.0, 0.0]
    assert w._version > version
    assert w.grad_fn is None and w.requires_grad


def test_saved_tensor_changed_by_step_is_caught_at_backward():
    w = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.5)
    loss = (w * w).sum()
    loss.backward(retain_graph=True)
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_zero_grad_sets_to_none_or_zeros(torch):
    for t in (dyngrad, torch):
        w = t.tensor([1.0, 2.0], requires_grad=True)
        opt = t.optim.SGD([w], lr=0.1)
        (w * 3).sum().backward()
        grad = w.grad
        opt.zero_grad(set_to_none=False)
        assert w.grad is grad and w.grad.tolist() == [0.0, 0.0]
        opt.zero_grad()
        assert w.grad is None


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad"])
def test_complex_parameters_match_torch(torch, name):
    # PyTorch updates a complex parameter as pairs of reals (view_as_real).
    rng = np.random.default_rng(3)
    grads = (rng.standard_normal((5, 3)) + 1j * rng.standard_normal((5, 3))).astype(np.complex64)

    def run(t):
        z = t.tensor(np.array([1 + 2j, -0.5 + 0.25j, 0.1j], dtype=np.complex64), requires_grad=True)
        opt = getattr(t.optim, name)([z], lr=0.1, weight_decay=0.1)
        for g in grads:
            z.grad = t.tensor(g)
            opt.step()
        return z.detach().numpy()

    np.testing.assert_allclose(run(dyngrad), run(torch), rtol=1e-5)
