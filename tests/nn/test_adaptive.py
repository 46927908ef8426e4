"""nn.AdaptiveLogSoftmaxWithLoss against torch: modules and their initial numbers, output and
loss with their nodes, gradients, log_prob, predict and errors."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

R = np.random.default_rng(9)
X = R.standard_normal((6, 8))
Y = np.array([0, 3, 7, 9, 2, 5])


def _run(lib, target, x=X, cutoffs=(3, 6), **kwargs):
    lib.manual_seed(0)
    m = lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, list(cutoffs), **kwargs).double()
    xx = lib.tensor(x, requires_grad=True)
    out = m(xx, lib.tensor(target))
    out.loss.backward()
    names = (out.output.grad_fn.name(), out.loss.grad_fn.name(), type(out).__name__)
    params = [None if p.grad is None else p.grad.numpy() for p in m.parameters()]
    return m, names, out.output.detach().numpy(), out.loss.item(), xx.grad.numpy(), params


@pytest.mark.parametrize(
    ("target", "x", "kwargs"),
    [
        (Y, X, {}),
        (Y, X, {"div_value": 2.0, "head_bias": True}),
        (np.array([0, 1, 2, 1, 0, 2]), X, {}),  # the shortlist only
        (np.array([7, 8, 9, 8, 7, 9]), X, {}),  # one cluster only
        (np.array(7), X[0], {}),  # unbatched
    ],
)
def test_adaptive_log_softmax_matches_torch(torch, target, x, kwargs):
    ours, theirs = _run(dyngrad, target, x, **kwargs), _run(torch, target, x, **kwargs)
    assert repr(ours[0]) == repr(theirs[0])
    assert list(ours[0].state_dict()) == list(theirs[0].state_dict())
    assert ours[1] == theirs[1]
    for a, b in zip(ours[2:5] + tuple(ours[5]), theirs[2:5] + tuple(theirs[5])):
        assert (a is None) == (b is None)  # a cluster no target falls in gets no gradient
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_adaptive_log_softmax_log_prob_and_predict_match_torch(torch):
    results = []
    for lib in (dyngrad, torch):
        lib.manual_seed(1)
        m = lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0).double()
        x = lib.tensor(X)
        log_prob = m.log_prob(x)
        results.append((log_prob.detach().numpy(), m.predict(x).numpy(), m.predict(x[:1]).numpy()))
        np.testing.assert_allclose(log_prob.exp().sum(1).detach().numpy(), 1.0)
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def _error(lib, code):
    m = lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6])
    try:
        eval(code, {"lib": lib, "m": m})
    except Exception as exc:  # noqa: BLE001 - the error itself is compared
        return type(exc).__name__, str(exc).splitlines()[0]
    return None


@pytest.mark.parametrize(
    "code",
    [
        "lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [])",
        "lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3])",
        "lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10])",
        "lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 3])",
        "m(lib.ones(4, 8), lib.tensor([1, 2]))",
        "m(lib.ones(2, 2, 8), lib.tensor([1, 2]))",
        "m(lib.ones(2, 8), lib.tensor(1))",
        "m(lib.ones(2, 8), lib.tensor([[1, 2]]))",
        "m(lib.ones(2, 8), lib.tensor([1, 12]))",
    ],
)
def test_adaptive_log_softmax_errors_match_torch(torch, code):
    assert _error(dyngrad, code) == _error(torch, code) != None  # noqa: E711


def test_adaptive_log_softmax_passes_gradcheck_and_gradgradcheck(torch):
    dyngrad.manual_seed(0)
    m = dyngrad.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0).double()
    x = dyngrad.tensor(X, requires_grad=True)
    y = dyngrad.tensor(Y)
    assert dyngrad.autograd.gradcheck(lambda x: m(x, y).output, (x,))
    assert dyngrad.autograd.gradgradcheck(lambda x: m(x, y).loss, (x,))


@pytest.mark.parametrize(
    "call",
    [
        "F.adaptive_avg_pool1d(x[0], 2.5)",
        "F.adaptive_max_pool1d(x[0], 2.5)",
        "F.adaptive_avg_pool2d(x, 2.5)",
        "F.adaptive_avg_pool2d(x, (2.5, 3))",
        "F.adaptive_max_pool2d(x, (3, 2.5))",
        "F.adaptive_avg_pool3d(x[None], (1, 2.5, 3))",
    ],
)
def test_float_output_size_errors_match_torch(call, torch):
    messages = []
    for lib in (dyngrad, torch):
        env = {"F": lib.nn.functional, "x": lib.ones(1, 2, 6, 6)}
        with pytest.raises(TypeError) as info:
            eval(call, env)
        messages.append(str(info.value).splitlines()[0])
    assert messages[0] == messages[1]
