"""CyclicLR and CosineAnnealingWarmRestarts against PyTorch: lr and momentum sequences, state."""

from __future__ import annotations

import warnings

import pytest

import dyngrad

from .test_lr_scheduler import _optimizer, _sequence


class _Halving:
    """A callable object as scale_fn: its __dict__ is what state_dict keeps."""

    def __init__(self) -> None:
        self.base = 0.5

    def __call__(self, x):
        return self.base**x


CYCLIC = {
    "triangular": lambda s, o: s.CyclicLR(o, 0.01, 0.1, step_size_up=4),
    "triangular-uneven": lambda s, o: s.CyclicLR(
        o, [0.01, 0.001], [0.1, 0.05], step_size_up=3, step_size_down=5
    ),
    "triangular2": lambda s, o: s.CyclicLR(o, 0.01, 0.1, step_size_up=2, mode="triangular2"),
    "exp_range": lambda s, o: s.CyclicLR(o, 0.01, 0.1, 3, mode="exp_range", gamma=0.9),
    "scale_fn-cycle": lambda s, o: s.CyclicLR(
        o, 0.01, 0.1, 2, scale_fn=lambda x: 1 / (x + 1), base_momentum=0.5, max_momentum=0.7
    ),
    "scale_fn-iterations": lambda s, o: s.CyclicLR(
        o, 0.01, 0.1, 3, scale_fn=_Halving(), scale_mode="iterations"
    ),
    "no-momentum": lambda s, o: s.CyclicLR(o, 0.01, 0.1, 4, cycle_momentum=False),
    "warm-restarts": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=4),
    "warm-restarts-mult": lambda s, o: s.CosineAnnealingWarmRestarts(
        o, T_0=2, T_mult=3, eta_min=0.001
    ),
}


@pytest.mark.parametrize("key", list(CYCLIC))
@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_cyclic_sequences_match_torch(torch, key, name):
    kwargs = {"momentum": 0.9} if name == "SGD" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = _sequence(dyngrad, CYCLIC[key], epochs=40, name=name, **kwargs)
    theirs = _sequence(torch, CYCLIC[key], epochs=40, name=name, **kwargs)
    assert ours == theirs
    if key.startswith(("triangular", "exp", "scale")):  # momentum (SGD) or beta1 (Adam) cycles
        assert ours[1][0] != ours[1][3]


def _fractional(t, epochs):
    opt = _optimizer(t)
    sched = t.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.01)
    seen = []
    for epoch in epochs:
        opt.step()
        sched.step(epoch)
        seen.append((sched.get_last_lr(), sched.last_epoch, sched.T_cur, sched.T_i))
    return seen


def test_warm_restarts_fractional_epochs_match_torch(torch):
    epochs = [0.25, 0.5, 1.75, 3.0, 4.5, 9.0, 9.2, 20.0, 2.5, 21.0, 50.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch neither warns about `epoch` here nor counts
        ours = _fractional(dyngrad, epochs)
    assert ours == _fractional(torch, epochs)


def test_warm_restarts_interleaves_step_and_epoch(torch):
    def run(t):
        opt = _optimizer(t)
        sched = t.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=5)
        out = []
        for i in range(12):
            sched.step() if i % 3 else sched.step(i * 0.5)
            out.append(sched.get_last_lr())
        return out, sched._step_count

    assert run(dyngrad) == run(torch)


@pytest.mark.parametrize("key", ["triangular2", "exp_range", "scale_fn-iterations"])
def test_cyclic_state_dict_matches_torch(torch, key):
    def state(t):
        opt = _optimizer(t, momentum=0.9)
        sched = CYCLIC[key](t.optim.lr_scheduler, opt)
        for _ in range(5):
            opt.step()
            sched.step()
        return sched.state_dict()

    ours, theirs = state(dyngrad), state(torch)
    assert ours == theirs
    assert "_scale_fn_ref" not in ours


def test_cyclic_load_state_dict_resumes_the_schedule():
    lr_scheduler = dyngrad.optim.lr_scheduler
    opt = _optimizer(dyngrad, momentum=0.9)
    sched = CYCLIC["scale_fn-iterations"](lr_scheduler, opt)
    for _ in range(4):
        opt.step()
        sched.step()
    saved_opt, saved = opt.state_dict(), sched.state_dict()
    expected = []
    for _ in range(5):
        opt.step()
        sched.step()
        expected.append((sched.get_last_lr(), opt.param_groups[0]["momentum"]))
    opt2 = _optimizer(dyngrad, momentum=0.9)
    sched2 = CYCLIC["scale_fn-iterations"](lr_scheduler, opt2)
    sched2._scale_fn_custom.base = 0.25  # a callable object's __dict__ comes back from the state
    opt2.load_state_dict(saved_opt)
    sched2.load_state_dict(saved)
    assert sched2._scale_fn_custom.base == 0.5
    got = []
    for _ in range(5):
        opt2.step()
        sched2.step()
        got.append((sched2.get_last_lr(), opt2.param_groups[0]["momentum"]))
    assert got == expected
    sched3 = CYCLIC["exp_range"](lr_scheduler, _optimizer(dyngrad, momentum=0.9))
    sched3.load_state_dict(CYCLIC["exp_range"](lr_scheduler, opt).state_dict())
    assert sched3.scale_fn(2) == pytest.approx(0.81)  # the built-in scale rebuilt from `mode`


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda s, o: s.CyclicLR(o, 0.1, 1.0, mode="sine"), "mode is invalid and scale_fn is None"),
        (
            lambda s, o: s.CyclicLR(o, [0.1], 1.0),
            "base_lr must have the same length as optimizer.param_groups. base_lr has 1 values",
        ),
        (lambda s, o: s.CosineAnnealingWarmRestarts(o, 0), "Expected positive integer T_0"),
        (lambda s, o: s.CosineAnnealingWarmRestarts(o, 2.0), "Expected positive integer T_0"),
        (
            lambda s, o: s.CosineAnnealingWarmRestarts(o, 2, T_mult=0),
            "Expected integer T_mult >= 1, but got 0",
        ),
        (
            lambda s, o: s.CosineAnnealingWarmRestarts(o, 2, eta_min="0"),
            "Expected float or int eta_min, but got 0 of type <class 'str'>",
        ),
        (
            lambda s, o: s.CosineAnnealingWarmRestarts(o, 2).step(-1),
            "Expected non-negative epoch, but got -1",
        ),
    ],
)
def test_cyclic_errors_match_torch(make, message, lib):
    with pytest.raises(ValueError) as info:
        make(lib.optim.lr_scheduler, _optimizer(lib))
    assert str(info.value).startswith(message)


def test_cyclic_momentum_needs_an_optimizer_with_momentum(lib):
    opt = lib.optim.Adagrad([lib.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1)
    sched = lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, 2, cycle_momentum=False)
    opt.step()
    sched.step()
    assert sched.get_last_lr() == [pytest.approx(0.055)]
