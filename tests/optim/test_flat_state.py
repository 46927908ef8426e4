"""Flat updates of small parameters (Note [Flat updates]): bitwise the per-parameter loop."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import dyngrad
from dyngrad.optim import flat_state

from .test_optimizers import CONFIGS as ALL_CONFIGS

CONFIGS = [(name, kwargs) for name, kwargs in ALL_CONFIGS if name.startswith("Adam")]
IDS = [f"{name}-{'-'.join(map(str, kw.values()))}" for name, kw in CONFIGS]
SHAPES = [(6, 5), (5,), (5, 3), (3,), (200, 200)]  # the last is above SMALL: updated alone


def _problem(t, dtype=np.float32):
    rng = np.random.default_rng(3)
    params = [t.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True) for s in SHAPES]
    x = t.tensor(rng.standard_normal((7, 6)).astype(dtype))
    big_in = t.tensor(rng.standard_normal((4, 200)).astype(dtype))
    return params, x, big_in


def _loss(params, x, big_in):
    w1, b1, w2, b2, big = params
    h = (x @ w1 + b1).tanh()
    out = ((h @ w2 + b2) ** 2).sum()
    return out + ((big_in @ big - 1) ** 2).mean()


def _train(name, kwargs, steps=8, flat=True, monkeypatch=None, between=None, dtype=np.float32):
    if not flat:
        monkeypatch.setattr(flat_state, "SMALL", 0)
    params, x, big_in = _problem(dyngrad, dtype)
    opt = getattr(dyngrad.optim, name)(params, **kwargs)
    for i in range(steps):
        opt.zero_grad()
        _loss(params, x, big_in).backward()
        if between is not None:
            between(i, params, opt)
        opt.step()
    if not flat:
        monkeypatch.undo()
    return params, opt


def _assert_same(a, b):
    (pa, oa), (pb, ob) = a, b
    for x, y in zip(pa, pb):
        np.testing.assert_array_equal(x.detach().numpy(), y.detach().numpy())
        assert x._version == y._version
    for x, y in zip(pa, pb):
        sa, sb = oa.state[x], ob.state[y]
        assert sa.keys() == sb.keys()
        for key in sa:
            np.testing.assert_array_equal(sa[key].numpy(), sb[key].numpy(), err_msg=key)
            assert sa[key].shape == sb[key].shape and sa[key].dtype == sb[key].dtype
            assert sa[key]._version == sb[key]._version, key


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=IDS)
def test_flat_step_is_bitwise_the_loop(monkeypatch, name, kwargs):
    flat = _train(name, kwargs)
    assert flat[1]._flat_states  # the small parameters really went through one bundle
    bundle = next(iter(flat[1]._flat_states.values()))
    assert len(bundle.params) == 4 and len(bundle.rest) == 1
    _assert_same(flat, _train(name, kwargs, flat=False, monkeypatch=monkeypatch))


def test_flat_step_in_float64(monkeypatch):
    kwargs = {"lr": 0.01, "weight_decay": 0.05}
    _assert_same(
        _train("AdamW", kwargs, dtype=np.float64),
        _train("AdamW", kwargs, dtype=np.float64, flat=False, monkeypatch=monkeypatch),
    )


def test_state_tensors_have_the_parameters_shapes_and_take_in_place_writes(monkeypatch):
    def zero_first_moment(i, params, opt):
        if i == 4:
            for p in params:
                opt.state[p]["exp_avg"].zero_()

    flat = _train("Adam", {"lr": 0.01}, between=zero_first_moment)
    for p in flat[0]:
        assert flat[1].state[p]["exp_avg"].shape == p.shape
        assert flat[1].state[p]["step"].shape == ()
    _assert_same(
        flat,
        _train(
            "Adam", {"lr": 0.01}, flat=False, monkeypatch=monkeypatch, between=zero_first_moment
        ),
    )


def test_a_missing_gradient_takes_that_parameter_out_of_the_bundle(monkeypatch):
    def drop_bias_grad(i, params, opt):
        if i in (2, 3):
            params[1].grad = None  # b1 skips two steps: its step count falls behind

    flat = _train("Adam", {"lr": 0.01}, between=drop_bias_grad)
    assert flat[1].state[flat[0][1]]["step"].item() == 6
    assert flat[1].state[flat[0][0]]["step"].item() == 8
    _assert_same(
        flat,
        _train("Adam", {"lr": 0.01}, flat=False, monkeypatch=monkeypatch, between=drop_bias_grad),
    )


def test_replaced_state_and_a_loaded_state_dict_are_followed(monkeypatch):
    saved = {}

    def swap_state(i, params, opt):
        if i == 2:
            saved["sd"] = copy.deepcopy(opt.state_dict())
        if i == 4:  # a new tensor in place of the bundle's view
            p = params[0]
            opt.state[p]["exp_avg_sq"] = opt.state[p]["exp_avg_sq"] * 2
        if i == 6:
            opt.load_state_dict(saved["sd"])

    _assert_same(
        _train("AdamW", {"lr": 0.01}, between=swap_state),
        _train("AdamW", {"lr": 0.01}, flat=False, monkeypatch=monkeypatch, between=swap_state),
    )


def test_a_saved_state_dict_holds_each_parameters_own_values(tmp_path):
    params, opt = _train("Adam", {"lr": 0.01}, steps=3)
    path = tmp_path / "opt.pt"
    dyngrad.save(opt.state_dict(), path)
    loaded = dyngrad.load(path)
    for i, p in enumerate(params):
        for key, value in opt.state[p].items():
            assert loaded["state"][i][key].shape == value.shape
            np.testing.assert_array_equal(loaded["state"][i][key].numpy(), value.numpy())


def test_flat_steps_match_torch(torch):
    def run(t):
        params, x, big_in = _problem(t)
        opt = t.optim.AdamW(params, lr=0.01, amsgrad=True)
        for _ in range(10):
            opt.zero_grad()
            _loss(params, x, big_in).backward()
            opt.step()
        return [p.detach().numpy() for p in params]

    for ours, theirs in zip(run(dyngrad), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=2e-6)


def test_bundles_of_replaced_groups_are_dropped():
    params, opt = _train("Adam", {"lr": 0.01}, steps=2)
    opt.load_state_dict(copy.deepcopy(opt.state_dict()))  # new group dicts
    opt.zero_grad()
    _loss(params, *_problem(dyngrad)[1:]).backward()
    opt.step()
    assert list(opt._flat_states) == [id(opt.param_groups[0])]
