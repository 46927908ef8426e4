"""L-BFGS against PyTorch: loss sequences, parameters and state, with and without line search."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import dyngrad
from dyngrad import optim
from dyngrad.optim.line_search import cubic_interpolate

from .test_more_optimizers import _from_torch

START = np.array([-1.5, 2.0, -0.5, 1.2, 0.3])
OPTIONS = [
    {},
    {"line_search_fn": "strong_wolfe"},
    {"lr": 0.5, "max_iter": 5, "history_size": 3},  # the history fills and shifts
    {"line_search_fn": "strong_wolfe", "max_iter": 7, "max_eval": 9, "history_size": 2},
    {"line_search_fn": "strong_wolfe", "tolerance_grad": 1e-3, "tolerance_change": 1e-4},
]
IDS = ["fixed-step", "strong-wolfe", "short-history", "eval-budget", "tolerances"]


def _rosenbrock(x):
    return ((1 - x[:-1]) ** 2).sum() + 100 * ((x[1:] - x[:-1] ** 2) ** 2).sum()


def _minimize(t, kwargs, steps=4, dtype=np.float64, scheduler=None):
    x = t.tensor(START.astype(dtype), requires_grad=True)
    opt = t.optim.LBFGS([x], **kwargs)
    sched = scheduler(t.optim.lr_scheduler, opt) if scheduler else None

    def closure():
        opt.zero_grad()
        loss = _rosenbrock(x)
        loss.backward()
        return loss

    losses, points = [], []
    for _ in range(steps):
        losses.append(opt.step(closure).item())
        points.append(x.detach().numpy().copy())
        if sched is not None:
            sched.step()
    return np.array(losses), np.array(points), opt


def _assert_state_matches(ours: dict, theirs: dict, rtol: float) -> None:
    assert list(ours) == list(theirs)
    for key, value in theirs.items():
        _assert_value_matches(ours[key], value, rtol, key)


def _assert_value_matches(mine, value, rtol, key) -> None:
    # the same kind of value as PyTorch keeps: int, float, 0-d or 1-d tensor, list of them
    if isinstance(value, list):
        assert isinstance(mine, list) and len(mine) == len(value), key
        for a, b in zip(mine, value):
            _assert_value_matches(a, b, rtol, key)
    elif value is None:
        assert mine is None, key
    elif isinstance(value, (int, float)):
        assert type(mine) is type(value), key
        assert mine == pytest.approx(value, rel=rtol, abs=rtol), key
    else:
        assert isinstance(mine, dyngrad.Tensor), key
        assert mine.dtype.name == str(value.dtype).split(".")[1], key
        assert tuple(mine.shape) == tuple(value.shape), key
        np.testing.assert_allclose(mine.numpy(), value.numpy(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("kwargs", OPTIONS, ids=IDS)
def test_rosenbrock_losses_points_and_state_match_torch(torch, kwargs):
    losses, points, ours = _minimize(dyngrad, kwargs)
    t_losses, t_points, theirs = _minimize(torch, kwargs)
    np.testing.assert_allclose(losses, t_losses, rtol=1e-9)
    np.testing.assert_allclose(points, t_points, rtol=1e-7, atol=1e-9)
    a, b = ours.state_dict(), theirs.state_dict()
    assert a["param_groups"] == b["param_groups"]
    _assert_state_matches(a["state"][0], b["state"][0], rtol=1e-5)


def _mlp_run(t, kwargs, dtype, steps=3):
    rng = np.random.default_rng(5)
    x = t.tensor(rng.standard_normal((16, 3)).astype(dtype))
    y = t.tensor(np.sin(rng.standard_normal((16, 1))).astype(dtype))
    model = t.nn.Sequential(t.nn.Linear(3, 6), t.nn.Tanh(), t.nn.Linear(6, 1))
    for p in model.parameters():
        p.data = t.tensor((rng.standard_normal(tuple(p.shape)) * 0.5).astype(dtype))
    opt = t.optim.LBFGS(model.parameters(), **kwargs)
    losses = []

    def closure():
        opt.zero_grad()
        loss = t.nn.functional.mse_loss(model(x), y)
        loss.backward()
        losses.append(loss.item())
        return loss

    for _ in range(steps):
        opt.step(closure)
    return np.array(losses), [p.detach().numpy() for p in model.parameters()], opt


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kwargs", OPTIONS[:2], ids=IDS[:2])
def test_mlp_trained_with_a_closure_matches_torch(torch, kwargs, dtype):
    kwargs = {**kwargs, "max_iter": 6}
    # float32 losses differ in their last bits (the forward's sums), which L-BFGS amplifies
    rtol = 1e-4 if dtype is np.float32 else 1e-10
    losses, params, ours = _mlp_run(dyngrad, kwargs, dtype)
    t_losses, t_params, theirs = _mlp_run(torch, kwargs, dtype)
    assert len(losses) == len(t_losses)  # every evaluation of the closure, in order
    np.testing.assert_allclose(losses, t_losses, rtol=rtol)
    for a, b in zip(params, t_params):
        np.testing.assert_allclose(a, b, rtol=rtol * 10, atol=rtol)
    _assert_state_matches(ours.state_dict()["state"][0], theirs.state_dict()["state"][0], 1e-3)


@pytest.mark.parametrize("kwargs", OPTIONS[:2], ids=IDS[:2])
def test_load_state_dict_resumes_the_same_minimization(kwargs):
    straight, _, _ = _minimize(dyngrad, kwargs, steps=3)
    x = dyngrad.tensor(START, requires_grad=True)
    opt = optim.LBFGS([x], **kwargs)

    def closure():
        opt.zero_grad()
        loss = _rosenbrock(x)
        loss.backward()
        return loss

    losses = [opt.step(closure).item() for _ in range(2)]
    saved = copy.deepcopy(opt.state_dict())
    opt = optim.LBFGS([x], **kwargs)
    opt.load_state_dict(saved)
    assert repr(opt.state_dict()) == repr(saved)
    losses.append(opt.step(closure).item())
    assert losses == straight.tolist()


def test_torch_state_dict_loads_and_resumes(torch):
    kwargs = {"line_search_fn": "strong_wolfe", "max_iter": 6, "history_size": 4}
    t_losses, t_points, _ = _minimize(torch, kwargs, steps=3)
    _, _, halfway = _minimize(torch, kwargs, steps=2)
    x = dyngrad.tensor(t_points[1], requires_grad=True)
    opt = optim.LBFGS([x], **kwargs)
    opt.load_state_dict(_from_torch(halfway.state_dict()))

    def closure():
        opt.zero_grad()
        loss = _rosenbrock(x)
        loss.backward()
        return loss

    assert opt.step(closure).item() == pytest.approx(t_losses[2], rel=1e-12)
    np.testing.assert_allclose(x.detach().numpy(), t_points[2], rtol=1e-9)


def test_lr_scheduler_changes_the_step_as_torch(torch):
    def schedule(s, o):
        return s.StepLR(o, step_size=1, gamma=0.5)

    kwargs = {"max_iter": 4}
    losses, points, ours = _minimize(dyngrad, kwargs, scheduler=schedule)
    t_losses, t_points, theirs = _minimize(torch, kwargs, scheduler=schedule)
    np.testing.assert_allclose(losses, t_losses, rtol=1e-9)
    np.testing.assert_allclose(points, t_points, rtol=1e-7)
    assert ours.param_groups[0]["lr"] == theirs.param_groups[0]["lr"] == 0.0625


def test_plateau_scheduler_reads_the_closure_loss(torch):
    def run(t):
        x = t.tensor(START, requires_grad=True)
        opt = t.optim.LBFGS([x], max_iter=3)
        sched = t.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5)

        def closure():
            opt.zero_grad()
            loss = _rosenbrock(x)
            loss.backward()
            return loss

        lrs = []
        for _ in range(5):
            sched.step(opt.step(closure).item())
            lrs.append(opt.param_groups[0]["lr"])
        return lrs

    assert run(dyngrad) == run(torch)


def test_converged_start_returns_at_once(torch):
    def run(t):
        x = t.ones(3, requires_grad=True)
        opt = t.optim.LBFGS([x])

        def closure():
            opt.zero_grad()
            loss = ((x - 1) ** 2).sum()
            loss.backward()
            return loss

        loss = opt.step(closure)
        return loss.item(), x.tolist(), opt.state_dict()["state"]

    assert run(dyngrad) == run(torch) == (0.0, [1.0, 1.0, 1.0], {0: {"func_evals": 1, "n_iter": 0}})


def test_parameters_without_grad_count_as_zero_gradient(torch):
    def run(t):
        x = t.tensor([0.5, -1.0], requires_grad=True)
        unused = t.tensor([2.0], requires_grad=True)
        opt = t.optim.LBFGS([x, unused], max_iter=5)

        def closure():
            opt.zero_grad()
            loss = ((x - 3) ** 2).sum()
            loss.backward()
            return loss

        opt.step(closure)
        return x.tolist(), unused.tolist()

    ours, theirs = run(dyngrad), run(torch)
    assert ours[1] == theirs[1] == [2.0]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)


def test_complex_parameters_match_torch(torch):
    # L-BFGS sees a complex parameter as pairs of reals. The loss |z - c|^2 + |z|^4 / 10 and
    # its gradient (PyTorch's convention: d/d re + i d/d im) come from NumPy.
    c = 0.3 - 1j

    def loss_and_grad(z):
        return (abs(z - c) ** 2 + abs(z) ** 4 / 10).sum(), 2 * (z - c) + 0.4 * abs(z) ** 2 * z

    def run(t):
        z = t.tensor(np.array([1 + 2j, -0.5 + 0.25j]), requires_grad=True)
        opt = t.optim.LBFGS([z], line_search_fn="strong_wolfe", max_iter=8)

        def closure():
            loss, grad = loss_and_grad(z.detach().numpy())
            z.grad = t.tensor(grad)
            return t.tensor(loss)

        opt.step(closure)
        return z.detach().numpy()

    np.testing.assert_allclose(run(dyngrad), run(torch), rtol=1e-9)


def _error(make):
    with pytest.raises(Exception) as info:
        make()
    return info.type, str(info.value)


@pytest.mark.parametrize(
    "make",
    [
        lambda t: t.optim.LBFGS([t.ones(2, requires_grad=True)], lr=-1.0),
        lambda t: t.optim.LBFGS([t.ones(2, requires_grad=True)], lr=t.ones(2)),
        lambda t: t.optim.LBFGS(
            [
                {"params": [t.ones(2, requires_grad=True)]},
                {"params": [t.ones(1, requires_grad=True)]},
            ]
        ),
    ],
)
def test_construction_errors_match_torch(torch, make):
    assert _error(lambda: make(dyngrad)) == _error(lambda: make(torch))


def test_unknown_line_search_raises_torch_error(torch):
    def make(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        opt = t.optim.LBFGS([x], line_search_fn="backtracking")

        def closure():
            opt.zero_grad()
            loss = (x * x).sum()
            loss.backward()
            return loss

        opt.step(closure)

    assert _error(lambda: make(dyngrad)) == _error(lambda: make(torch))


def test_repr_and_defaults_match_torch(torch):
    ours = optim.LBFGS([dyngrad.ones(2, requires_grad=True)], lr=0.1, history_size=5)
    theirs = torch.optim.LBFGS([torch.ones(2, requires_grad=True)], lr=0.1, history_size=5)
    assert repr(ours) == repr(theirs)
    assert ours.defaults == theirs.defaults
    assert ours.defaults["max_eval"] == 25


@pytest.mark.parametrize(
    "args",
    [
        (0.0, 1.0, -2.0, 1.0, 0.5, 1.5),
        (1.0, 0.5, 1.5, 0.0, 1.0, -2.0),
        (0.0, 1.0, -1.0, 1.0, 3.0, 1.0),  # no real minimizer: the middle
        (0.2, 1.0, -2.0, 0.3, 0.9, -1.0, (0.31, 2.0)),  # clamped to the bounds
    ],
)
def test_cubic_interpolate_matches_torch(torch, args):
    from torch.optim.lbfgs import _cubic_interpolate

    slopes = (2, 5)  # slopes are 0-d tensors there, NumPy scalars here
    ours = cubic_interpolate(*[np.float64(a) if i in slopes else a for i, a in enumerate(args)])
    theirs = _cubic_interpolate(
        *[torch.tensor(a, dtype=torch.float64) if i in slopes else a for i, a in enumerate(args)]
    )
    assert float(ours) == pytest.approx(float(theirs), rel=1e-15)
