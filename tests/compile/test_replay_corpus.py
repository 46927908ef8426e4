"""Every case of the compile corpus (corpus.py), compiled and called again and again on new
inputs, gives what eager gives: replayed where it can be (Note [Replay]), run where not."""

import contextlib
import io

import numpy as np
import pytest

import dyngrad

from . import corpus

CASES = corpus.load(dyngrad)


def _arrays(value):
    if isinstance(value, dyngrad.Tensor):
        return [value.detach().numpy().copy()]
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in _arrays(v)]
    return [value]


def _equal(a, b) -> bool:
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b, True)
    return a == b


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_calls_equal_eager_on_every_call(name):
    dyngrad._dynamo.reset()
    f, make = CASES[name]
    target = f() if isinstance(f, type) else f
    run = dyngrad.compile(target)
    (x,) = make()
    # the same input, then others: each replay must follow the data as eager does
    inputs = [x, x, x * 1.5, -x, x, x + 0.25]
    with contextlib.redirect_stdout(io.StringIO()):
        for i, value in enumerate(inputs):
            expected = _arrays(target(value))
            got = _arrays(run(value))
            assert len(got) == len(expected), (name, i)
            assert all(_equal(a, b) for a, b in zip(got, expected)), (name, i)
    dyngrad._dynamo.reset()


def test_the_corpus_replays_its_cases_without_breaks():
    replayed = []
    for name, (f, make) in sorted(CASES.items()):
        dyngrad._dynamo.reset()
        target = f() if isinstance(f, type) else f
        run = dyngrad.compile(target)
        (x,) = make()
        with contextlib.redirect_stdout(io.StringIO()):
            for _ in range(3):
                run(x)
        if any(s.replayed for s in dyngrad._dynamo.replay_status(run)):
            replayed.append(name)
    dyngrad._dynamo.reset()
    # the cases with no graph break and nothing a replay can't redo
    for name in ("no_break", "nested_clean", "loop_clean", "no_grad_clean", "enable_grad_inside",
                 "shape_logic", "return_tuple", "python_scalar_math", "autocast_clean",
                 "Clean"):  # fmt: skip
        assert name in replayed, name
    for name in ("branch", "item_mid", "print_first", "numpy_call", "Hooked", "nested_deep"):
        assert name not in replayed, name


def _backward(out, x):
    outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,))]
    total = sum(o.sum() for o in outs if isinstance(o, dyngrad.Tensor) and o.requires_grad)
    if isinstance(total, dyngrad.Tensor):
        total.backward()
    return None if x.grad is None else x.grad.numpy().copy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_gradients_equal_eager_on_every_call(name):
    if name == "numpy_call":
        pytest.skip("calls .numpy() on its input: refused for inputs that require grad")
    dyngrad._dynamo.reset()
    f, make = CASES[name]
    target = f() if isinstance(f, type) else f
    run = dyngrad.compile(target)
    (x,) = make()
    with contextlib.redirect_stdout(io.StringIO()):
        for value in (x, x, x * 1.5, x):
            a = value.clone().requires_grad_(True)
            b = value.clone().requires_grad_(True)
            expected = _backward(target(a), a)
            got = _backward(run(b), b)
            assert (expected is None) == (got is None), name
            assert expected is None or np.array_equal(expected, got), name
    dyngrad._dynamo.reset()
