"""The Optimizer base class against PyTorch: param groups, errors, repr, hooks, state_dict."""

from __future__ import annotations

import pytest

import dyngrad
from dyngrad import optim


def _params(t, n=2):
    return [t.ones(2, requires_grad=True) for _ in range(n)]


def _error(make):
    with pytest.raises(Exception) as info:
        make()
    return info.type, str(info.value)


@pytest.mark.parametrize(
    "make",
    [
        lambda t: t.optim.SGD([], lr=0.1),
        lambda t: t.optim.SGD(t.ones(2, requires_grad=True), lr=0.1),
        lambda t: t.optim.SGD([{"params": {t.ones(2, requires_grad=True)}}], lr=0.1),
        lambda t: t.optim.SGD([1.0], lr=0.1),
        lambda t: t.optim.SGD([t.ones(2, requires_grad=True) * 2], lr=0.1),
        lambda t: t.optim.SGD(_params(t), lr=-1),
        lambda t: t.optim.SGD(_params(t), lr=0.1, momentum=-1),
        lambda t: t.optim.SGD(_params(t), lr=0.1, nesterov=True),
        lambda t: t.optim.SGD(_params(t), lr=0.1, weight_decay=-1),
        lambda t: t.optim.Adam(_params(t), betas=(1.0, 0.9)),
        lambda t: t.optim.Adam(_params(t), betas=(0.9, -0.1)),
        lambda t: t.optim.Adam(_params(t), eps=-1),
        lambda t: t.optim.Adam(_params(t), betas=(0.9, 1)),
        lambda t: t.optim.AdamW(_params(t), lr=t.ones(2)),
        lambda t: t.optim.RMSprop(_params(t), alpha=-1),
        lambda t: t.optim.Adagrad(_params(t), lr_decay=-1),
        lambda t: t.optim.Adagrad(_params(t), initial_accumulator_value=-1),
        lambda t: t.optim.Adam(_params(t), fused=True, foreach=True),
    ],
)
def test_construction_errors_match_torch(torch, make):
    assert _error(lambda: make(dyngrad)) == _error(lambda: make(torch))


def test_add_param_group_errors_match_torch(torch):
    for t in (dyngrad, torch):
        a, b = _params(t)
        opt = t.optim.SGD([a], lr=0.1)
        with pytest.raises(
            ValueError, match="some parameters appear in more than one parameter group"
        ):
            opt.add_param_group({"params": [b, a]})
        with pytest.raises(TypeError, match="param_group must be a dict"):
            opt.add_param_group([b])
        with pytest.raises(
            ValueError,
            match="all optimizer param groups should be with/without "
            "names. cannot add param group with names",
        ):
            opt.add_param_group({"params": [("b", b)]})
        opt.add_param_group({"params": b, "lr": 0.5})
        assert opt.param_groups[1]["lr"] == 0.5 and opt.param_groups[1]["momentum"] == 0


def test_duplicate_parameters_warn_as_torch(torch):
    for t in (dyngrad, torch):
        p = t.ones(1, requires_grad=True)
        with pytest.warns(
            UserWarning, match="optimizer contains a parameter group with duplicate parameters"
        ):
            t.optim.SGD([p, p], lr=0.1)


def test_named_parameters_are_accepted(torch):
    for t in (dyngrad, torch):
        a, b = _params(t)
        opt = t.optim.Adam([("a", a), ("b", b)])
        assert opt.param_groups[0]["param_names"] == ["a", "b"]
        assert opt.state_dict()["param_groups"][0]["param_names"] == ["a", "b"]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_repr_and_defaults_match_torch(torch, name):
    ours = getattr(optim, name)(_params(dyngrad), lr=0.1)
    theirs = getattr(torch.optim, name)(_params(torch), lr=0.1)
    assert repr(ours) == repr(theirs)
    assert ours.defaults == theirs.defaults


def test_unsupported_implementation_flags_are_refused_clearly():
    with pytest.raises(
        NotImplementedError,
        match=r"dyngrad does not implement "
        r"Adam\(differentiable=True\)",
    ):
        optim.Adam(_params(dyngrad), differentiable=True)
    with pytest.raises(NotImplementedError, match=r"capturable=True"):
        optim.RMSprop(_params(dyngrad), capturable=True)


def test_foreach_and_fused_give_the_plain_update(torch):
    results = []
    for kwargs in ({}, {"foreach": True}, {"fused": True}):
        w = dyngrad.tensor([1.0, -2.0], requires_grad=True)
        opt = optim.Adam([w], lr=0.1, **kwargs)
        for _ in range(3):
            opt.zero_grad()
            (w * w).sum().backward()
            opt.step()
        results.append(w.tolist())
    assert results[0] == results[1] == results[2]


def test_step_hooks_run_around_step(torch):
    def run(t):
        w = t.ones(1, requires_grad=True)
        opt = t.optim.SGD([w], lr=0.1)
        calls = []
        opt.register_step_pre_hook(lambda o, args, kwargs: calls.append("pre"))
        handle = opt.register_step_post_hook(lambda o, args, kwargs: calls.append("post"))
        opt.step()
        handle.remove()
        opt.step()
        return calls

    assert run(dyngrad) == run(torch) == ["pre", "post", "pre"]


def test_load_state_dict_errors_match_torch(torch):
    def error(t, change):
        a, b = _params(t)
        opt = t.optim.SGD([a, b], lr=0.1)
        saved = opt.state_dict()
        change(saved)
        return _error(lambda: opt.load_state_dict(saved))

    for change in (
        lambda s: s["param_groups"].append({"params": []}),
        lambda s: s["param_groups"][0]["params"].pop(),
    ):
        assert error(dyngrad, change) == error(torch, change)


def test_load_state_dict_casts_state_to_the_parameter_dtype():
    w32 = dyngrad.ones(2, requires_grad=True)
    opt = optim.Adam([w32])
    (w32 * w32).sum().backward()
    opt.step()
    w64 = dyngrad.ones(2, dtype=dyngrad.float64, requires_grad=True)
    opt64 = optim.Adam([w64])
    opt64.load_state_dict(opt.state_dict())
    state = opt64.state[w64]
    assert state["exp_avg"].dtype == dyngrad.float64
    assert state["step"].dtype == dyngrad.float32  # the step counter keeps its dtype
    assert opt64.param_groups[0]["params"][0] is w64


def test_state_is_keyed_by_parameter():
    a, b = _params(dyngrad)
    opt = optim.SGD([a, b], lr=0.1, momentum=0.9)
    (a * 2).sum().backward()
    opt.step()
    assert list(opt.state) == [a] and "momentum_buffer" in opt.state[a]
    assert opt.state[a]["momentum_buffer"].tolist() == [2.0, 2.0]


def test_builtin_step_runs_without_grad_like_torch():
    # PyTorch's built-in steps switch grad mode off; a closure turns it on for itself, and an
    # overriding subclass's own code runs in the caller's mode.
    seen = {}

    class Spy(dyngrad.optim.SGD):
        def step(self, closure=None):
            seen["override"] = dyngrad.is_grad_enabled()
            return super().step(closure)

    p = dyngrad.ones(2, requires_grad=True)

    def closure():
        seen["closure"] = dyngrad.is_grad_enabled()
        loss = (p * p).sum()
        loss.backward()
        return loss

    Spy([p], lr=0.1).step(closure)
    assert seen == {"override": True, "closure": True}
    assert p.tolist() == pytest.approx([0.8, 0.8])
    assert dyngrad.is_grad_enabled()
