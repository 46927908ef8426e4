"""`optim.swa_utils` against PyTorch: averaged weights bit for bit, SWALR's lrs, update_bn."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import dyngrad


def _net(t):
    t.manual_seed(0)
    return t.nn.Sequential(
        t.nn.Linear(3, 4), t.nn.BatchNorm1d(4), t.nn.ReLU(), t.nn.Linear(4, 2), t.nn.BatchNorm1d(2)
    )


def _tensors(model):
    return list(itertools.chain(model.parameters(), model.buffers()))


def _draw(rng, model):
    """New values for every parameter and buffer (counters included), as NumPy arrays."""
    arrays = []
    for x in _tensors(model):
        if x.dtype.is_floating_point:
            arrays.append(rng.standard_normal(tuple(x.shape)).astype(np.float32))
        else:
            arrays.append(np.array(rng.integers(0, 50), dtype=np.int64))
    return arrays


def _load(t, model, arrays):
    with t.no_grad():
        for x, a in zip(_tensors(model), arrays):
            x.copy_(t.from_numpy(a.copy()))


def _numpy(model):
    return [x.detach().numpy().copy() for x in _tensors(model)]


AVERAGES = {
    "swa-default": lambda s: {},
    "swa-multi": lambda s: {"multi_avg_fn": s.get_swa_multi_avg_fn()},
    "ema-multi": lambda s: {"multi_avg_fn": s.get_ema_multi_avg_fn(0.9)},
    "ema-avg_fn": lambda s: {"avg_fn": s.get_ema_avg_fn(0.75)},
    "swa-avg_fn": lambda s: {"avg_fn": s.get_swa_avg_fn()},
}


def _average(t, key, use_buffers, updates=5):
    """The averaged model's tensors after each update, from the same drawn weights."""
    rng = np.random.default_rng(1)
    model = _net(t)
    averaged = t.optim.swa_utils.AveragedModel(
        model, use_buffers=use_buffers, **AVERAGES[key](t.optim.swa_utils)
    )
    seen = []
    for _ in range(updates):
        _load(t, model, _draw(rng, model))
        averaged.update_parameters(model)
        seen.append((_numpy(averaged.module), int(averaged.n_averaged)))
    return seen


def _assert_same(ours, theirs):
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


# The same float32 roundings in both: `a + (p - a) / (n + 1)` and `decay * a + (1 - decay) * p`
# as separate operations, and the multi-tensor averages as PyTorch's lerp kernel's one fused
# multiply-add (See Note [Averaging numerics]). So the averages agree bit for bit.
@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("key", list(AVERAGES))
def test_averaged_model_matches_torch_bit_for_bit(torch, key, use_buffers):
    if key == "swa-multi" and use_buffers:
        pytest.skip("PyTorch raises for the integer counter; see the test below")
    ours = _average(dyngrad, key, use_buffers)
    theirs = _average(torch, key, use_buffers)
    assert [n for _, n in ours] == [n for _, n in theirs] == [1, 2, 3, 4, 5]
    for (ours_step, _), (theirs_step, _) in zip(ours, theirs):
        _assert_same(ours_step, theirs_step)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("make", ["swa", "ema", "ema-heavy"])
def test_multi_avg_fns_round_as_torch_lerp(torch, dtype, make):
    def run(t):
        swa = t.optim.swa_utils
        fn = {
            "swa": swa.get_swa_multi_avg_fn(),
            "ema": swa.get_ema_multi_avg_fn(0.9),  # weight 0.1: x + w * (y - x)
            "ema-heavy": swa.get_ema_multi_avg_fn(0.3),  # weight 0.7: y + (w - 1) * (y - x)
        }[make]
        rng = np.random.default_rng(6)
        averaged = [t.from_numpy(rng.standard_normal(s).astype(dtype)) for s in [(257,), (3, 5)]]
        averaged.append(t.tensor(rng.standard_normal(), dtype=getattr(t, dtype)))
        for n in range(1, 6):
            current = [
                t.from_numpy(rng.standard_normal(tuple(a.shape)).astype(dtype)) for a in averaged
            ]
            fn(averaged, current, t.tensor(n))
        return [a.numpy() for a in averaged]

    _assert_same(run(dyngrad), run(torch))


def test_averages_are_the_running_mean_and_the_ema():
    rng = np.random.default_rng(1)
    model = dyngrad.nn.Linear(2, 2)
    swa = dyngrad.optim.swa_utils.AveragedModel(model)
    ema = dyngrad.optim.swa_utils.AveragedModel(
        model, multi_avg_fn=dyngrad.optim.swa_utils.get_ema_multi_avg_fn(0.5)
    )
    draws = [_draw(rng, model) for _ in range(3)]
    for arrays in draws:
        _load(dyngrad, model, arrays)
        swa.update_parameters(model)
        ema.update_parameters(model)
    weights = [d[0] for d in draws]
    np.testing.assert_allclose(swa.module.weight.detach().numpy(), np.mean(weights, 0), rtol=1e-6)
    expected = 0.25 * weights[0] + 0.25 * weights[1] + 0.5 * weights[2]
    np.testing.assert_allclose(ema.module.weight.detach().numpy(), expected, rtol=1e-6)


def test_buffers_follow_the_model_without_use_buffers():
    rng = np.random.default_rng(2)
    model = _net(dyngrad)
    averaged = dyngrad.optim.swa_utils.AveragedModel(model)
    for _ in range(2):
        arrays = _draw(rng, model)
        _load(dyngrad, model, arrays)
        averaged.update_parameters(model)
    ours = [b.numpy() for b in averaged.module.buffers()]
    for got, want in zip(ours, [b.numpy() for b in model.buffers()]):
        np.testing.assert_array_equal(got, want)


def test_swa_multi_avg_fn_with_integer_buffers_raises_as_torch(torch):
    def run(t):
        rng = np.random.default_rng(3)
        model = _net(t)
        swa = t.optim.swa_utils
        averaged = swa.AveragedModel(
            model, multi_avg_fn=swa.get_swa_multi_avg_fn(), use_buffers=True
        )
        _load(t, model, _draw(rng, model))
        averaged.update_parameters(model)
        _load(t, model, _draw(rng, model))
        with pytest.raises(RuntimeError) as info:
            averaged.update_parameters(model)
        # the int64 group comes first and raises: nothing averaged, n_averaged stays
        return str(info.value), _numpy(averaged.module), int(averaged.n_averaged)

    ours, theirs = run(dyngrad), run(torch)
    assert ours[0] == theirs[0]
    assert ours[0].startswith("Integer division with addcdiv is no longer supported")
    assert ours[2] == theirs[2] == 1
    _assert_same(ours[1], theirs[1])


def test_multi_avg_fn_gets_lists_grouped_by_dtype_and_n_averaged(torch):
    def calls(t):
        seen = []

        def record(own, theirs, n):
            seen.append(([str(x.dtype) for x in own], len(theirs), n.dtype, int(n)))

        model = _net(t)
        averaged = t.optim.swa_utils.AveragedModel(model, multi_avg_fn=record, use_buffers=True)
        for _ in range(3):
            averaged.update_parameters(model)
        return seen

    ours = calls(dyngrad)
    assert [(o, k, str(d), n) for o, k, d, n in ours] == [
        (o, k, str(d), n) for o, k, d, n in calls(torch)
    ]
    # PyTorch's hash map yields the int64 counters' group ahead of the float32 one
    assert [(o[0], n) for o, *_, n in ours] == [
        ("torch.int64", 1),
        ("torch.float32", 1),
        ("torch.int64", 2),
        ("torch.float32", 2),
    ]


def test_averaged_model_state_dict_and_forward_match_torch(torch):
    x = np.random.default_rng(4).standard_normal((5, 3)).astype(np.float32)
    out, shown = [], []
    for t in (dyngrad, torch):
        model = _net(t)
        averaged = t.optim.swa_utils.AveragedModel(model)
        averaged.update_parameters(model)
        averaged.update_parameters(model)
        state = averaged.state_dict()
        shown.append(list(state))
        assert int(state["n_averaged"]) == 2 and state["n_averaged"].dtype == t.long
        averaged.eval()
        out.append(averaged(t.from_numpy(x)).detach().numpy())
        shown.append(repr(averaged))
        assert averaged.module is not model and averaged.module[0].weight is not model[0].weight
    assert shown[:2] == shown[2:]  # state dict keys and repr, ours then torch's
    assert shown[0][:2] == ["n_averaged", "module.0.weight"]
    assert shown[1].startswith("AveragedModel(\n  (module): Sequential(\n    (0): Linear(")
    # forward runs each library's own linear/batch-norm kernels: close, not bitwise
    np.testing.assert_allclose(out[0], out[1], rtol=1e-5, atol=1e-6)

    restored = dyngrad.optim.swa_utils.AveragedModel(_net(dyngrad))
    model = _net(dyngrad)
    source = dyngrad.optim.swa_utils.AveragedModel(model)
    source.update_parameters(model)
    restored.load_state_dict(source.state_dict())
    assert int(restored.n_averaged) == 1


def _error(make):
    with pytest.raises(Exception) as info:
        make()
    return type(info.value), str(info.value)


def test_averaged_model_errors_match_torch(torch):
    def cases(t):
        swa = t.optim.swa_utils
        fn = swa.get_swa_avg_fn()
        return [
            lambda: swa.AveragedModel(t.nn.Linear(1, 1), avg_fn=fn, multi_avg_fn=fn),
            lambda: swa.get_ema_multi_avg_fn(1.5),
            lambda: swa.get_ema_avg_fn(-0.1),
        ]

    ours = [_error(c) for c in cases(dyngrad)]
    assert ours == [_error(c) for c in cases(torch)]
    assert ours[0] == (AssertionError, "Only one of avg_fn and multi_avg_fn should be provided")
    assert ours[1][1].startswith("Invalid decay value 1.5 provided.")


# ---- SWALR -------------------------------------------------------------------------------------


def _optimizer(t):
    w = t.zeros(2, requires_grad=True)
    b = t.zeros(1, requires_grad=True)
    return t.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.01}], lr=0.1)


def _swalr_lrs(t, swa_lr, anneal_epochs, strategy, warmup=0, epochs=9):
    opt = _optimizer(t)
    before = t.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    sched = t.optim.swa_utils.SWALR(
        opt, swa_lr=swa_lr, anneal_epochs=anneal_epochs, anneal_strategy=strategy
    )
    seen = [sched.get_last_lr()]
    for epoch in range(epochs):
        opt.step()
        (before if epoch < warmup else sched).step()
        seen.append([g["lr"] for g in opt.param_groups] + sched.get_last_lr())
    return seen, [g["swa_lr"] for g in opt.param_groups]


@pytest.mark.parametrize("warmup", [0, 3])
@pytest.mark.parametrize("swa_lr", [0.05, [0.05, 0.2]])
@pytest.mark.parametrize("anneal_epochs", [0, 1, 5])
@pytest.mark.parametrize("strategy", ["cos", "linear"])
def test_swalr_lr_sequence_matches_torch(torch, strategy, anneal_epochs, swa_lr, warmup):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = _swalr_lrs(dyngrad, swa_lr, anneal_epochs, strategy, warmup)
    assert ours == _swalr_lrs(torch, swa_lr, anneal_epochs, strategy, warmup)
    swa_lrs = swa_lr if isinstance(swa_lr, list) else [swa_lr, swa_lr]
    assert ours[0][-1][:2] == pytest.approx(swa_lrs, rel=1e-12)


def test_swalr_with_tensor_lrs_matches_torch(torch):
    def run(t):
        opt = t.optim.SGD([t.zeros(2, requires_grad=True)], lr=t.tensor(0.1))
        sched = t.optim.swa_utils.SWALR(opt, swa_lr=t.tensor(0.02), anneal_epochs=3)
        seen = []
        for _ in range(5):
            opt.step()
            sched.step()
            lr = opt.param_groups[0]["lr"]
            seen.append((type(lr).__name__, lr.item(), sched.get_last_lr()[0].item()))
        return seen

    ours = run(dyngrad)
    assert ours == run(torch)
    assert ours[-1] == ("Tensor", pytest.approx(0.02), pytest.approx(0.02))


def test_swalr_anneals_halfway_along_a_cosine():
    opt = _optimizer(dyngrad)
    sched = dyngrad.optim.swa_utils.SWALR(opt, swa_lr=0.0, anneal_epochs=2)
    opt.step()
    sched.step()
    assert sched.get_last_lr() == pytest.approx([0.05, 0.005])


def test_swalr_warnings_match_torch(torch):
    def messages(t):
        opt = _optimizer(t)
        sched = t.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step()  # before optimizer.step(): PyTorch warns
            opt.step()
            sched.get_lr()  # outside step
            sched.step(2)  # the deprecated epoch argument
        assert all(w.filename == __file__ for w in caught)  # each points at the caller
        return [(w.category, str(w.message).split(".")[0]) for w in caught], sched.get_last_lr()

    ours = messages(dyngrad)
    assert ours == messages(torch)
    assert [m for _, m in ours[0]] == [
        "Detected call of `lr_scheduler",
        "To get the last learning rate computed by the scheduler, please use `get_last_lr()`",
        "The epoch parameter in `scheduler",
    ]


def test_swalr_state_dict_matches_torch_and_resumes(torch):
    def state(t):
        opt = _optimizer(t)
        sched = t.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=4, anneal_strategy="linear")
        for _ in range(2):
            opt.step()
            sched.step()
        return sched.state_dict()

    ours = state(dyngrad)
    assert ours == state(torch)
    assert "anneal_func" not in ours and ours["_anneal_strategy"] == "linear"

    opt = _optimizer(dyngrad)
    sched = dyngrad.optim.swa_utils.SWALR(opt, swa_lr=0.05)
    sched.load_state_dict(ours)
    assert sched.anneal_func(0.5) == 0.5 and sched.anneal_epochs == 4


def test_swalr_errors_match_torch(torch):
    def cases(t):
        swalr = t.optim.swa_utils.SWALR
        return [
            lambda: swalr(_optimizer(t), swa_lr=[0.1, 0.2, 0.3]),
            lambda: swalr(_optimizer(t), swa_lr=0.1, anneal_strategy="exp"),
            lambda: swalr(_optimizer(t), swa_lr=0.1, anneal_epochs=-1),
            lambda: swalr(_optimizer(t), swa_lr=0.1, anneal_epochs=2.0),
        ]

    ours = [_error(c) for c in cases(dyngrad)]
    assert ours == [_error(c) for c in cases(torch)]
    assert ours[0] == (
        ValueError,
        "swa_lr must have the same length as optimizer.param_groups. swa_lr has 3 values, "
        "param_groups has 2.",
    )
    assert ours[1][1] == "anneal_strategy must be one of 'cos' or 'linear', instead got exp"
    assert ours[3][1] == "anneal_epochs must be equal or greater than 0, got 2.0"


# ---- update_bn ---------------------------------------------------------------------------------


def _update_bn(t, batches_as_lists, device=None):
    model = _net(t)
    model[1].momentum = 0.3
    model.eval()
    rng = np.random.default_rng(5)
    x = t.from_numpy(rng.standard_normal((10, 3)).astype(np.float32))
    y = t.from_numpy(rng.standard_normal((10, 2)).astype(np.float32))
    if batches_as_lists:
        data = t.utils.data.TensorDataset(x, y)
        loader = t.utils.data.DataLoader(data, batch_size=4)
    else:
        loader = [x[:4], x[4:]]
    t.optim.swa_utils.update_bn(loader, model, device=device)
    assert not model.training and model[1].momentum == 0.3 and model[4].momentum == 0.1
    return [b.numpy() for b in model.buffers()]


@pytest.mark.parametrize("batches_as_lists, device", [(True, None), (False, "cpu")])
def test_update_bn_matches_torch(torch, batches_as_lists, device):
    ours = _update_bn(dyngrad, batches_as_lists, device)
    theirs = _update_bn(torch, batches_as_lists, device)
    assert [b.dtype for b in ours] == [b.dtype for b in theirs]
    # batch statistics come from each library's own batch-norm kernel: close, not bitwise
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert int(ours[2]) == (3 if batches_as_lists else 2)


def test_update_bn_cumulates_over_the_whole_loader():
    model = dyngrad.nn.BatchNorm1d(1)
    loader = [dyngrad.tensor([[1.0], [3.0]]), dyngrad.tensor([[5.0], [7.0]])]
    dyngrad.optim.swa_utils.update_bn(loader, model)
    # momentum None: the plain mean of the two batches' means and unbiased variances
    assert model.running_mean.tolist() == [4.0]
    assert model.running_var.tolist() == [2.0]
    assert model.momentum == 0.1 and model.training


def test_update_bn_without_batch_norm_reads_nothing():
    model = dyngrad.nn.Linear(2, 2).eval()

    def loader():
        raise AssertionError("read")
        yield

    dyngrad.optim.swa_utils.update_bn(loader(), model)
    assert not model.training
