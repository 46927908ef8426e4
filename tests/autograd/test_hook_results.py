"""What backward hooks may return, checked as PyTorch checks it (autograd/hook_results.py)."""

from __future__ import annotations

import copy
import functools

import pytest


def _raises(lib, make_hook, register, exc, message):
    x = lib.ones(2, requires_grad=True)
    y = x * 2
    register(x, y, make_hook(lib))
    with pytest.raises(exc) as info:
        y.sum().backward()
    assert str(info.value) == message


def _tensor_hook(x, y, hook):
    x.register_hook(hook)


def _node_hook(x, y, hook):
    y.grad_fn.register_hook(hook)


def _node_prehook(x, y, hook):
    y.grad_fn.register_prehook(hook)


class _Callable:
    def __init__(self, lib):
        self.lib = lib

    def __call__(self, g):
        return self.lib.ones(3)


CASES = [
    (lambda t: lambda g: 5, _tensor_hook, TypeError, "expected Variable, but hook returned 'int'"),
    (
        lambda t: lambda g: t.ones(3),
        _tensor_hook,
        RuntimeError,
        "hook '<lambda>' has changed the size of value",
    ),
    (_Callable, _tensor_hook, RuntimeError, "hook '<unknown>' has changed the size of value"),
    (
        lambda t: functools.partial(lambda a, g: g.double(), 1),
        _tensor_hook,
        RuntimeError,
        "hook '<unknown>' has changed the type of value (was torch.FloatTensor got "
        "torch.DoubleTensor)",
    ),
    (lambda t: lambda gi, go: 3, _node_hook, TypeError, "expected tuple, but hook returned 'int'"),
    (
        lambda t: lambda gi, go: (3,),
        _node_hook,
        RuntimeError,
        "hook '<lambda>' has returned an incorrect number of values (got 1, but expected 2)",
    ),
    (
        lambda t: lambda gi, go: (t.ones(2), t.ones(2)),
        _node_hook,
        RuntimeError,
        "can't replace a None gradient with a non-None value",
    ),
    (
        lambda t: lambda go: (t.ones(3),),
        _node_prehook,
        RuntimeError,
        "hook '<lambda>' has changed the size of value",
    ),
    (
        lambda t: lambda go: [go[0]],
        _node_prehook,
        TypeError,
        "expected tuple, but hook returned 'list'",
    ),
]


@pytest.mark.parametrize("make_hook, register, exc, message", CASES)
def test_a_bad_hook_result_raises_pytorchs_error(lib, make_hook, register, exc, message):
    _raises(lib, make_hook, register, exc, message)


def test_hooks_may_replace_gradients_of_the_same_kind(lib):
    x = lib.ones(2, requires_grad=True)
    x.register_hook(lambda g: g * 10)
    y = x * 2
    y.grad_fn.register_prehook(lambda go: (go[0] + 1,))
    y.sum().backward()
    assert x.grad.tolist() == [40.0, 40.0]


def test_post_accumulate_grad_hook_must_return_none(lib):
    p = lib.ones(2, requires_grad=True)
    p.register_post_accumulate_grad_hook(lambda t: t.grad)
    with pytest.raises(RuntimeError, match="^Tensor post accumulate grad hooks should return None"):
        (p * 2).sum().backward()
    q = lib.ones(2, requires_grad=True)
    q.register_post_accumulate_grad_hook(lambda t: 5)
    with pytest.raises(TypeError, match="^expected Variable, but hook returned 'int'"):
        (q * 2).sum().backward()


def test_deepcopy_of_a_parameter_does_not_copy_its_hooks(lib):
    # an optimizer stepped from a post-accumulate hook, keyed by parameter: the copy has none
    model = lib.nn.Linear(3, 2)
    seen = []
    for p in model.parameters():
        p.register_post_accumulate_grad_hook(lambda t: seen.append(t))
        p.register_hook(lambda g: g * 0)
    model(lib.ones(1, 3)).sum().backward()
    assert len(seen) == 2
    twin = copy.deepcopy(model)
    assert twin.weight.grad is None  # PyTorch's Parameter copy leaves grad behind
    twin(lib.ones(1, 3)).sum().backward()
    assert len(seen) == 2 and twin.weight.grad.abs().sum().item() > 0
    assert twin.weight.tolist() == model.weight.tolist()


def test_calling_a_node_by_hand_checks_the_number_of_gradients(lib):
    x = lib.ones(1, requires_grad=True)
    y = x**2
    for args in [(x.detach(), x.detach()), ()]:
        with pytest.raises(TypeError, match=f"^expected 1 arguments, got {len(args)} instead"):
            y.grad_fn(*args)
    z = x * 3
    assert [g.tolist() if g is not None else None for g in z.grad_fn(x.detach())][0] == [3.0]
