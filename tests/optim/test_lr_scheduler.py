"""Learning-rate schedules against PyTorch: the same lr sequences, warnings and state."""

from __future__ import annotations

import math
import warnings

import pytest

import dyngrad


def _optimizer(t, name="SGD", **kwargs):
    w = t.zeros(2, requires_grad=True)
    b = t.zeros(1, requires_grad=True)
    return getattr(t.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.01}], lr=0.1, **kwargs)


SCHEDULES = {
    "StepLR": lambda s, o: s.StepLR(o, step_size=3, gamma=0.5),
    "MultiStepLR": lambda s, o: s.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.3),
    "ExponentialLR": lambda s, o: s.ExponentialLR(o, gamma=0.9),
    "CosineAnnealingLR": lambda s, o: s.CosineAnnealingLR(o, T_max=7, eta_min=0.001),
    "LambdaLR": lambda s, o: s.LambdaLR(o, lr_lambda=[lambda e: 0.95**e, lambda e: 1 / (e + 1)]),
    "MultiplicativeLR": lambda s, o: s.MultiplicativeLR(o, lr_lambda=lambda e: 0.9),
    "LinearLR": lambda s, o: s.LinearLR(o, start_factor=0.25, total_iters=6),
    "LinearLR-down": lambda s, o: s.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=4),
    "ConstantLR": lambda s, o: s.ConstantLR(o, factor=0.5, total_iters=3),
    "PolynomialLR": lambda s, o: s.PolynomialLR(o, total_iters=8, power=2.0),
    "OneCycleLR": lambda s, o: s.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=25),
    "OneCycleLR-3": lambda s, o: s.OneCycleLR(
        o, max_lr=1.0, epochs=5, steps_per_epoch=5, three_phase=True, anneal_strategy="linear"
    ),
    "SequentialLR": lambda s, o: s.SequentialLR(
        o,
        [s.LinearLR(o, start_factor=0.1, total_iters=4), s.CosineAnnealingLR(o, T_max=10)],
        milestones=[4],
    ),
    "ChainedScheduler": lambda s, o: s.ChainedScheduler(
        [s.ExponentialLR(o, gamma=0.9), s.StepLR(o, step_size=4, gamma=0.5)]
    ),
}


def _sequence(t, make, epochs=24, name="SGD", **kwargs):
    opt = _optimizer(t, name, **kwargs)
    sched = make(t.optim.lr_scheduler, opt)
    seen = [(sched.get_last_lr(), [g["lr"] for g in opt.param_groups])]
    extra = []
    for _ in range(epochs):
        opt.step()
        sched.step()
        seen.append((sched.get_last_lr(), [g["lr"] for g in opt.param_groups]))
        extra.append([g.get("momentum", g.get("betas")) for g in opt.param_groups])
    return seen, extra


@pytest.mark.parametrize("key", list(SCHEDULES))
def test_lr_sequence_matches_torch(torch, key):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = _sequence(dyngrad, SCHEDULES[key])
    assert ours == _sequence(torch, SCHEDULES[key])


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_one_cycle_cycles_momentum_or_beta1_as_torch(torch, name):
    kwargs = {"momentum": 0.9} if name == "SGD" else {}
    make = SCHEDULES["OneCycleLR"]
    ours = _sequence(dyngrad, make, name=name, **kwargs)
    assert ours == _sequence(torch, make, name=name, **kwargs)
    assert ours[1][0][0] != ours[1][-1][0]


def test_one_cycle_past_total_steps_raises():
    opt = _optimizer(dyngrad)
    sched = dyngrad.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=2)
    opt.step()
    sched.step()
    sched.step()
    with pytest.raises(
        ValueError, match="Tried to step 3 times. The specified number of total steps is 2"
    ):
        sched.step()


def _warnings_of(t, optimizer_first):
    opt = _optimizer(t)
    sched = t.optim.lr_scheduler.StepLR(opt, step_size=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if optimizer_first:
            opt.step()
        sched.step()
        opt.step()
    return [str(w.message) for w in caught]


def test_scheduler_step_before_optimizer_step_warns_as_torch(torch):
    ours = _warnings_of(dyngrad, optimizer_first=False)
    assert ours == _warnings_of(torch, optimizer_first=False)
    assert ours[0].startswith("Detected call of `lr_scheduler.step()` before `optimizer.step()`.")
    assert _warnings_of(dyngrad, optimizer_first=True) == []


def test_overridden_optimizer_step_warns_as_torch(torch):
    def messages(t):
        opt = _optimizer(t)
        sched = t.optim.lr_scheduler.StepLR(opt, step_size=1)
        opt.step = lambda closure=None: None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step()
        return [str(w.message) for w in caught]

    ours = messages(dyngrad)
    assert ours == messages(torch) and ours[0].startswith("Seems like `optimizer.step()`")


def test_get_lr_outside_step_warns(torch):
    for t in (dyngrad, torch):
        sched = t.optim.lr_scheduler.StepLR(_optimizer(t), step_size=1)
        with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
            sched.get_lr()


def test_step_with_epoch_uses_closed_form_and_warns(torch):
    def run(t):
        opt = _optimizer(t)
        sched = t.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        opt.step()
        with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)`"):
            sched.step(5)
        return sched.get_last_lr(), sched.last_epoch

    assert run(dyngrad) == run(torch) == ([0.025, 0.0025], 5)


@pytest.mark.parametrize(
    "key", ["StepLR", "CosineAnnealingLR", "OneCycleLR", "SequentialLR", "LambdaLR", "MultiStepLR"]
)
def test_state_dict_matches_torch(torch, key):
    def state(t):
        opt = _optimizer(t)
        sched = SCHEDULES[key](t.optim.lr_scheduler, opt)
        for _ in range(5):
            opt.step()
            sched.step()
        return sched.state_dict()

    assert state(dyngrad) == state(torch)


def test_load_state_dict_resumes_the_schedule():
    opt = _optimizer(dyngrad)
    sched = dyngrad.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6)
    for _ in range(3):
        opt.step()
        sched.step()
    saved_opt, saved = opt.state_dict(), sched.state_dict()
    expected = []
    for _ in range(3):
        opt.step()
        sched.step()
        expected.append(sched.get_last_lr())
    opt2 = _optimizer(dyngrad)
    opt2.load_state_dict(saved_opt)
    sched2 = dyngrad.optim.lr_scheduler.CosineAnnealingLR(opt2, T_max=6, last_epoch=2)
    sched2.load_state_dict(saved)
    got = []
    for _ in range(3):
        opt2.step()
        sched2.step()
        got.append(sched2.get_last_lr())
    assert got == expected


def test_resuming_without_initial_lr_raises(torch):
    for t in (dyngrad, torch):
        with pytest.raises(
            KeyError,
            match="param 'initial_lr' is not specified in param_groups\\[0\\] when resuming",
        ):
            t.optim.lr_scheduler.StepLR(_optimizer(t), step_size=1, last_epoch=3)


def test_errors_match_torch(torch):
    cases = [
        lambda s, o: s.LinearLR(o, start_factor=0),
        lambda s, o: s.ConstantLR(o, factor=2),
        lambda s, o: s.OneCycleLR(o, max_lr=1.0),
        lambda s, o: s.OneCycleLR(o, max_lr=[1.0], total_steps=3),
        lambda s, o: s.ReduceLROnPlateau(o, factor=1.0),
        lambda s, o: s.ReduceLROnPlateau(o, mode="up"),
        lambda s, o: s.SequentialLR(o, [s.StepLR(o, 1)], milestones=[1]),
        lambda s, o: s.StepLR(object(), 1),
    ]
    for make in cases:
        messages = []
        for t in (dyngrad, torch):
            with pytest.raises((ValueError, TypeError)) as info:
                make(t.optim.lr_scheduler, _optimizer(t))
            messages.append((info.type, str(info.value)))
        assert messages[0] == messages[1]


METRICS = [
    1.0,
    0.9,
    0.95,
    0.96,
    0.97,
    0.89,
    0.9,
    0.91,
    0.92,
    0.93,
    0.94,
    0.95,
    0.5,
    0.6,
    0.7,
    0.8,
    0.9,
    1.0,
    1.1,
]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"patience": 2},
        {"patience": 1, "cooldown": 2, "factor": 0.5, "min_lr": [0.02, 0.001]},
        {"mode": "max", "patience": 1, "threshold_mode": "abs", "threshold": 0.05},
    ],
)
def test_reduce_on_plateau_matches_torch(torch, kwargs):
    def run(t):
        opt = _optimizer(t)
        sched = t.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        out = []
        for m in METRICS:
            opt.step()
            sched.step(t.tensor(m))
            out.append((sched.get_last_lr(), sched.num_bad_epochs, sched.best))
        return out, sched.state_dict()

    ours, theirs = run(dyngrad), run(torch)
    assert ours == theirs


def test_tensor_lr_is_filled_in_place():
    w = dyngrad.zeros(2, requires_grad=True)
    lr = dyngrad.tensor(0.1)
    opt = dyngrad.optim.SGD([w], lr=lr)
    sched = dyngrad.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] is lr
    assert math.isclose(lr.item(), 0.05, rel_tol=1e-7)


def test_old_base_class_name_is_a_subclass(lib):
    # PyTorch keeps `_LRScheduler` as a subclass for old scripts: the built-in schedulers
    # are not instances of it, a scheduler deriving from it works
    opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1.0)
    schedulers = lib.optim.lr_scheduler
    assert not isinstance(schedulers.CosineAnnealingLR(opt, 5), schedulers._LRScheduler)

    class Halving(schedulers._LRScheduler):
        def get_lr(self):
            return [group["lr"] * 0.5 for group in self.optimizer.param_groups]

    scheduler = Halving(opt)
    opt.step()
    scheduler.step()
    assert scheduler.get_last_lr() == [0.25]
