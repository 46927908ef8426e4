"""Adadelta, Adamax, NAdam, RAdam, ASGD and Rprop against PyTorch: values, state, API."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import dyngrad
from dyngrad import optim

CONFIGS = [
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-5}),
    ("Adadelta", {"lr": 0.3, "weight_decay": 0.1, "maximize": True}),
    ("Adamax", {}),
    ("Adamax", {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6, "maximize": True}),
    ("Adamax", {"lr": 0.01, "weight_decay": 0.1}),
    ("NAdam", {}),
    ("NAdam", {"lr": 0.01, "betas": (0.8, 0.99), "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {}),
    ("RAdam", {"lr": 0.01, "betas": (0.5, 0.6)}),  # rectified from the fifth step on
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1}),
    (
        "RAdam",
        {"lr": 0.01, "betas": (0.5, 0.6), "weight_decay": 0.1, "decoupled_weight_decay": True},
    ),
    ("ASGD", {}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 3, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.05, "t0": 0, "maximize": True}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.7), "step_sizes": (1e-3, 0.2)}),
    ("Rprop", {"lr": 0.05, "maximize": True}),
]
IDS = [f"{name}-{'-'.join(map(str, kw.values()))}" for name, kw in CONFIGS]
NAMES = ["Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop"]
DTYPES = {"float32": (np.float32, 1e-6), "float64": (np.float64, 1e-13)}


def _model(t, dtype):
    """A small MLP, its initial weights the same in both libraries."""
    model = t.nn.Sequential(t.nn.Linear(4, 8), t.nn.Tanh(), t.nn.Linear(8, 2))
    rng = np.random.default_rng(0)
    for p in model.parameters():
        p.data = t.tensor((rng.standard_normal(tuple(p.shape)) * 0.5).astype(dtype))
    return model


def _batches(dtype, steps):
    rng = np.random.default_rng(4)
    return [
        (rng.standard_normal((6, 4)).astype(dtype), rng.standard_normal((6, 2)).astype(dtype))
        for _ in range(steps)
    ]


def _train(t, name, kwargs, dtype=np.float32, steps=10, scheduler=None):
    model = _model(t, dtype)
    opt = getattr(t.optim, name)(model.parameters(), **kwargs)
    sched = scheduler(t.optim.lr_scheduler, opt) if scheduler else None
    history = []
    for x, y in _batches(dtype, steps):
        opt.zero_grad()
        t.nn.functional.mse_loss(model(t.tensor(x)), t.tensor(y)).backward()
        opt.step()
        if sched is not None:
            sched.step()
        history.append([p.detach().numpy().copy() for p in model.parameters()])
    return history, opt


def _assert_close(ours, theirs, rtol):
    for step, (a, b) in enumerate(zip(ours, theirs)):
        for pa, pb in zip(a, b):
            assert pa.dtype == pb.dtype
            np.testing.assert_allclose(pa, pb, rtol=rtol, atol=rtol, err_msg=f"step {step}")


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=IDS)
def test_training_matches_torch_step_by_step(torch, name, kwargs, dtype):
    dtype, rtol = DTYPES[dtype]
    ours, _ = _train(dyngrad, name, kwargs, dtype)
    theirs, _ = _train(torch, name, kwargs, dtype)
    _assert_close(ours, theirs, rtol)


def _gradient(p: np.ndarray) -> np.ndarray:
    return np.sin(3 * p) + 0.1 * p * p - 0.2


def _steps_on_given_gradients(t, name, kwargs, dtype, steps=12):
    # The gradients are computed by NumPy from the parameters: only the update rule differs.
    rng = np.random.default_rng(1)
    params = [
        t.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True)
        for s in [(2, 3), (3,), (70,)]
    ]
    opt = getattr(t.optim, name)(params, **kwargs)
    history = []
    for _ in range(steps):
        for p in params:
            p.grad = t.tensor(_gradient(p.detach().numpy()))
        opt.step()
        history.append([p.detach().numpy().copy() for p in params])
    return history


# Note [Fused multiply-adds]
# PyTorch's CPU kernels for add(alpha=), addcmul and lerp round a*b+c once (a fused
# multiply-add), in their scalar and SIMD paths alike, and their SIMD square root is not
# always correctly rounded. NumPy has neither, so those rules agree with PyTorch within an ulp
# or so per operation, not bitwise. Rprop uses none of them: it is bitwise PyTorch's.


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=IDS)
def test_update_rule_matches_torch_on_the_same_gradients(torch, name, kwargs, dtype):
    dtype, rtol = DTYPES[dtype]
    ours = _steps_on_given_gradients(dyngrad, name, kwargs, dtype)
    theirs = _steps_on_given_gradients(torch, name, kwargs, dtype)
    if name != "Rprop":  # See Note [Fused multiply-adds]
        _assert_close(ours, theirs, rtol)
        return
    for step, (a, b) in enumerate(zip(ours, theirs)):
        for pa, pb in zip(a, b):
            np.testing.assert_array_equal(pa, pb, err_msg=f"step {step}")


def _assert_state_dicts_match(a: dict, b: dict, rtol: float) -> None:
    assert a["param_groups"] == b["param_groups"]
    assert list(a["state"]) == list(b["state"])
    for index, state in b["state"].items():
        assert list(a["state"][index]) == list(state)
        for key, value in state.items():
            mine = a["state"][index][key]
            assert mine.dtype.name == str(value.dtype).split(".")[1], key
            assert tuple(mine.shape) == tuple(value.shape), key
            np.testing.assert_allclose(mine.numpy(), value.numpy(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=IDS)
def test_state_dict_matches_torch(torch, name, kwargs, dtype):
    dtype, rtol = DTYPES[dtype]
    _, ours = _train(dyngrad, name, kwargs, dtype, steps=4)
    _, theirs = _train(torch, name, kwargs, dtype, steps=4)
    _assert_state_dicts_match(ours.state_dict(), theirs.state_dict(), rtol)


@pytest.mark.parametrize("name", ["NAdam", "ASGD", "Rprop"])
def test_scalar_state_is_float64_under_a_float64_default(torch, name):
    # `step`, NAdam's `mu_product`, ASGD's `eta` and `mu` follow the default dtype, as torch's.
    dyngrad.set_default_dtype(dyngrad.float64)
    torch.set_default_dtype(torch.float64)
    try:
        _, ours = _train(dyngrad, name, {}, np.float32, steps=3)
        _, theirs = _train(torch, name, {}, np.float32, steps=3)
    finally:
        torch.set_default_dtype(torch.float32)
    _assert_state_dicts_match(ours.state_dict(), theirs.state_dict(), 1e-6)


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=IDS)
def test_load_state_dict_resumes_the_same_trajectory(name, kwargs):
    straight, _ = _train(dyngrad, name, kwargs, steps=6)
    model = _model(dyngrad, np.float32)
    opt = getattr(optim, name)(model.parameters(), **kwargs)
    for i, (x, y) in enumerate(_batches(np.float32, 6)):
        if i == 3:  # a fresh optimizer, restored from a deep copy of the saved state
            saved = copy.deepcopy(opt.state_dict())
            opt = getattr(optim, name)(model.parameters(), **kwargs)
            opt.load_state_dict(saved)
            assert repr(opt.state_dict()) == repr(saved)
        opt.zero_grad()
        dyngrad.nn.functional.mse_loss(model(dyngrad.tensor(x)), dyngrad.tensor(y)).backward()
        opt.step()
    for pa, pb in zip(straight[-1], model.parameters()):
        np.testing.assert_array_equal(pa, pb.detach().numpy())


def _from_torch(value):
    """A torch state_dict as dyngrad's: each tensor copied with its dtype."""
    if isinstance(value, dict):
        return {k: _from_torch(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_torch(v) for v in value]
    if hasattr(value, "detach"):
        return dyngrad.tensor(value.detach().numpy())
    return value


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS[1::3], ids=IDS[1::3])
def test_torch_state_dict_loads_and_resumes_torch_trajectory(torch, name, kwargs):
    straight, _ = _train(torch, name, kwargs, steps=6)
    halfway, torch_opt = _train(torch, name, kwargs, steps=3)
    model = _model(dyngrad, np.float32)
    for p, value in zip(model.parameters(), halfway[-1]):
        p.data = dyngrad.tensor(value)
    opt = getattr(optim, name)(model.parameters(), **kwargs)
    opt.load_state_dict(_from_torch(torch_opt.state_dict()))
    resumed = []
    for x, y in _batches(np.float32, 6)[3:]:
        opt.zero_grad()
        dyngrad.nn.functional.mse_loss(model(dyngrad.tensor(x)), dyngrad.tensor(y)).backward()
        opt.step()
        resumed.append([p.detach().numpy().copy() for p in model.parameters()])
    _assert_close(resumed, straight[3:], 1e-6)


SCHEDULES = {
    "StepLR": lambda s, o: s.StepLR(o, step_size=3, gamma=0.5),
    "ExponentialLR": lambda s, o: s.ExponentialLR(o, gamma=0.8),
    "CosineAnnealingLR": lambda s, o: s.CosineAnnealingLR(o, T_max=5, eta_min=0.001),
    "OneCycleLR": lambda s, o: s.OneCycleLR(o, max_lr=0.05, total_steps=10),
}


@pytest.mark.parametrize("schedule", list(SCHEDULES))
@pytest.mark.parametrize("name", NAMES)
def test_lr_schedulers_drive_the_new_optimizers_as_torch(torch, name, schedule):
    if schedule == "OneCycleLR" and name in ("Adadelta", "ASGD", "Rprop"):
        pytest.skip("OneCycleLR cycles a momentum or beta1 these optimizers lack")
    kwargs = {"lr": 0.05} if name != "Adadelta" else {"lr": 0.5}
    ours, opt = _train(dyngrad, name, kwargs, scheduler=SCHEDULES[schedule])
    theirs, topt = _train(torch, name, kwargs, scheduler=SCHEDULES[schedule])
    _assert_close(ours, theirs, 1e-6)
    assert opt.param_groups[0]["lr"] == pytest.approx(topt.param_groups[0]["lr"], rel=1e-12)
    if "betas" in opt.defaults:
        assert opt.param_groups[0]["betas"] == pytest.approx(topt.param_groups[0]["betas"])


def test_one_cycle_refuses_optimizers_without_momentum(torch):
    for t in (dyngrad, torch):
        opt = t.optim.Rprop([t.ones(2, requires_grad=True)])
        with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
            t.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=5)


@pytest.mark.parametrize("name", NAMES)
def test_complex_parameters_match_torch(torch, name):
    # PyTorch updates a complex parameter as pairs of reals (view_as_real).
    rng = np.random.default_rng(3)
    grads = (rng.standard_normal((5, 3)) + 1j * rng.standard_normal((5, 3))).astype(np.complex64)
    kwargs = {"lr": 0.1} if name == "Rprop" else {"lr": 0.1, "weight_decay": 0.1}

    def run(t):
        z = t.tensor(np.array([1 + 2j, -0.5 + 0.25j, 0.1j], dtype=np.complex64), requires_grad=True)
        opt = getattr(t.optim, name)([z], **kwargs)
        for g in grads:
            z.grad = t.tensor(g)
            opt.step()
        return z.detach().numpy()

    np.testing.assert_allclose(run(dyngrad), run(torch), rtol=1e-6)


def _params(t):
    return [t.ones(2, requires_grad=True), t.zeros(3, requires_grad=True)]


def _error(make):
    with pytest.raises(Exception) as info:
        make()
    return info.type, str(info.value)


@pytest.mark.parametrize(
    "make",
    [
        lambda t: t.optim.Adadelta(_params(t), lr=-1.0),
        lambda t: t.optim.Adadelta(_params(t), rho=1.5),
        lambda t: t.optim.Adadelta(_params(t), eps=-1e-6),
        lambda t: t.optim.Adadelta(_params(t), weight_decay=-1),
        lambda t: t.optim.Adadelta(_params(t), lr=t.ones(2)),
        lambda t: t.optim.Adamax(_params(t), lr=-1.0),
        lambda t: t.optim.Adamax(_params(t), eps=-1.0),
        lambda t: t.optim.Adamax(_params(t), betas=(1.0, 0.9)),
        lambda t: t.optim.Adamax(_params(t), betas=(0.9, -0.1)),
        lambda t: t.optim.Adamax(_params(t), weight_decay=-1),
        lambda t: t.optim.NAdam(_params(t), lr=-0.1),
        lambda t: t.optim.NAdam(_params(t), betas=(0.9, 1.0)),
        lambda t: t.optim.NAdam(_params(t), momentum_decay=-1),
        lambda t: t.optim.RAdam(_params(t), eps=-1.0),
        lambda t: t.optim.RAdam(_params(t), weight_decay=-0.5),
        lambda t: t.optim.ASGD(_params(t), lr=-1),
        lambda t: t.optim.ASGD(_params(t), weight_decay=-1),
        lambda t: t.optim.Rprop(_params(t), lr=-1),
        lambda t: t.optim.Rprop(_params(t), etas=(1.5, 1.2)),
        lambda t: t.optim.Rprop(_params(t), etas=(0.5, 0.9)),
        lambda t: t.optim.Rprop(_params(t), etas=(0.0, 1.2)),
        lambda t: t.optim.NAdam([], lr=0.1),
    ],
)
def test_construction_errors_match_torch(torch, make):
    assert _error(lambda: make(dyngrad)) == _error(lambda: make(torch))


@pytest.mark.parametrize("name", NAMES)
def test_repr_and_defaults_match_torch(torch, name):
    ours = getattr(optim, name)(_params(dyngrad), lr=0.1)
    theirs = getattr(torch.optim, name)(_params(torch), lr=0.1)
    assert repr(ours) == repr(theirs)
    assert ours.defaults == theirs.defaults


@pytest.mark.parametrize("name", NAMES)
def test_unsupported_implementation_flags_are_refused_clearly(name):
    for flag in ("differentiable", "capturable"):
        with pytest.raises(NotImplementedError, match=rf"{name}\({flag}=True\)"):
            getattr(optim, name)(_params(dyngrad), **{flag: True})


@pytest.mark.parametrize("name", NAMES)
def test_foreach_gives_the_plain_update(name):
    plain, _ = _train(dyngrad, name, {}, steps=3)
    forked, _ = _train(dyngrad, name, {"foreach": True}, steps=3)
    for a, b in zip(plain[-1], forked[-1]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", NAMES)
def test_parameters_without_grad_are_skipped_and_closure_loss_returned(torch, name):
    def run(t):
        w, unused = _params(t)
        opt = getattr(t.optim, name)([w, unused])

        def closure():
            opt.zero_grad()
            loss = (w * w * 3).sum()
            loss.backward()
            return loss

        loss = opt.step(closure)
        return loss.item(), w.tolist(), unused.tolist(), list(opt.state_dict()["state"])

    assert run(dyngrad) == run(torch)


def test_step_bumps_versions_so_a_stale_graph_is_caught():
    w = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.NAdam([w])
    loss = (w * w).sum()
    loss.backward(retain_graph=True)
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()
