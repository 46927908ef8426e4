"""Forward pre/post hooks and full backward (pre-)hooks, against torch's behaviour."""

from __future__ import annotations

import warnings
from collections import OrderedDict

import numpy as np
import pytest

import dyngrad
from dyngrad import nn


def _shapes(grads):
    return [None if g is None else tuple(g.shape) for g in grads]


def _record_backward(t, requires_input_grad: bool):
    """The backward hooks' calls for one Linear, in order, with gradient shapes."""
    layer = t.nn.Linear(2, 3)
    log = []
    layer.register_full_backward_pre_hook(lambda m, go: log.append(("pre", _shapes(go))))
    layer.register_full_backward_hook(
        lambda m, gi, go: log.append(("full", _shapes(gi), _shapes(go)))
    )
    x = t.ones(4, 2, requires_grad=requires_input_grad)
    out = layer(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out.sum().backward()
    return log, out.grad_fn.name()


@pytest.mark.parametrize("requires_input_grad", [True, False])
def test_backward_hook_calls_match_torch(requires_input_grad, torch):
    ours = _record_backward(dyngrad, requires_input_grad)
    theirs = _record_backward(torch, requires_input_grad)
    assert ours == theirs


@pytest.mark.parametrize(
    "register", ["register_full_backward_hook", "register_full_backward_pre_hook"]
)
def test_backward_hook_warns_without_input_grad(register):
    layer = nn.Linear(2, 2)
    getattr(layer, register)(lambda *a: None)  # a pre-hook alone warns too, as in PyTorch
    with pytest.warns(
        UserWarning,
        match="Full backward hook is firing when gradients are "
        "computed with respect to module outputs",
    ):
        layer(dyngrad.ones(1, 2)).sum().backward()


def test_backward_hook_replaces_grad_input(torch):
    grads = []
    for t in (torch, dyngrad):
        layer = t.nn.Linear(2, 2)
        with t.no_grad():
            layer.weight.copy_(t.tensor([[1.0, 2.0], [3.0, 4.0]]))
        layer.register_full_backward_hook(lambda m, gi, go: (gi[0] * 2,))
        x = t.ones(3, 2, requires_grad=True)
        layer(x).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0])
    np.testing.assert_allclose(grads[1], np.full((3, 2), 0.0) + [[8.0, 12.0]])


def test_backward_pre_hook_replaces_grad_output():
    layer = nn.Linear(2, 1, bias=False)
    layer.register_full_backward_pre_hook(lambda m, go: (go[0] * 0,))
    x = dyngrad.ones(3, 2, requires_grad=True)
    layer(x).sum().backward()
    assert not x.grad.numpy().any() and not layer.weight.grad.numpy().any()


def test_backward_hook_wrong_count_raises():
    layer = nn.Linear(2, 2)
    layer.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    with pytest.raises(
        RuntimeError,
        match="Backward hook returned an invalid number of grad_input, got 2, but expected 1",
    ):
        layer(dyngrad.ones(1, 2, requires_grad=True)).sum().backward()


def test_backward_hook_on_sequential_sees_module_boundary():
    seen = []
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    model.register_full_backward_hook(lambda m, gi, go: seen.append((_shapes(gi), _shapes(go))))
    model(dyngrad.randn(5, 3, requires_grad=True)).sum().backward()
    assert seen == [([(5, 3)], [(5, 1)])]


def test_full_backward_hook_fires_once_under_double_backward(lib):
    # The second differentiation reaches the input identity through what MSELoss saved,
    # never through the output: PyTorch's hook skips it, so the count stays 1.
    seen = []
    loss = lib.nn.MSELoss()
    loss.register_full_backward_hook(
        lambda m, gi, go: seen.append(([g.tolist() for g in gi], [g.tolist() for g in go]))
    )
    x = lib.tensor([1.0, 4.0], requires_grad=True)
    y = lib.tensor([0.0, 2.0])
    (gx,) = lib.autograd.grad(loss(x, y), x, create_graph=True)
    assert gx.tolist() == [1.0, 2.0]  # 2 (x - y) / 2
    assert seen == [([[1.0, 2.0], [0.0, 0.0]], [1.0])]
    (ggx,) = lib.autograd.grad(gx.sum(), x)
    assert ggx.tolist() == [1.0, 1.0] and len(seen) == 1
    (gx,) = lib.autograd.grad(loss(x, y), x)  # a fresh pass fires again
    assert len(seen) == 2


def test_full_backward_hook_sees_zeros_for_inputs_that_need_no_grad(lib):
    # Each tensor input gets its identity's gradient, zeros of its dtype where it needs none
    # (PyTorch passes the materialized gradient, not None); only non-tensors get None.
    seen = []

    def record(module, grad_input, grad_output):
        seen.append([None if g is None else (g.dtype, g.tolist()) for g in grad_input])

    loss = lib.nn.CrossEntropyLoss()
    loss.register_full_backward_hook(record)
    logits = lib.zeros(1, 2, requires_grad=True)
    loss(logits, lib.tensor([1])).backward()
    assert seen[-1] == [(lib.float32, [[0.5, -0.5]]), (lib.int64, [0])]

    class Scale(lib.nn.Module):
        def forward(self, a, k):
            return a * k

    scale = Scale()
    scale.register_full_backward_hook(record)
    scale(lib.ones(2, requires_grad=True), 3.0).sum().backward()
    assert seen[-1] == [(lib.float32, [3.0, 3.0]), None]


def test_backward_pre_hook_replacement_flows_when_no_input_needs_grad(lib):
    # With no input needing grad the full hooks fire at the output; what the pre-hook
    # returned still flows on into the module's parameters.
    layer = lib.nn.Linear(2, 1)
    with lib.no_grad():
        layer.weight.copy_(lib.tensor([[1.0, 2.0]]))
    layer.register_full_backward_pre_hook(lambda m, go: (go[0] * 10,))
    seen = []
    layer.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go[0].tolist())))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the hook fires at the output: PyTorch warns so
        layer(lib.ones(1, 2)).sum().backward()
    assert layer.weight.grad.tolist() == [[10.0, 10.0]] and layer.bias.grad.tolist() == [10.0]
    assert seen == [((None,), [[10.0]])]


def test_forward_hooks_order_and_results():
    layer = nn.Linear(2, 2)
    calls = []
    h1 = layer.register_forward_pre_hook(lambda m, args: calls.append("pre1"))
    layer.register_forward_pre_hook(lambda m, args: calls.append("pre0"), prepend=True)
    layer.register_forward_hook(lambda m, args, out: out * 0)
    out = layer(dyngrad.ones(1, 2))
    assert calls == ["pre0", "pre1"] and not out.detach().numpy().any()
    h1.remove()
    calls.clear()
    layer(dyngrad.ones(1, 2))
    assert calls == ["pre0"]


def test_forward_pre_hook_replaces_args():
    layer = nn.Identity()
    layer.register_forward_pre_hook(lambda m, args: args[0] + 1)
    assert layer(dyngrad.zeros(1)).item() == 1.0


def test_hooks_with_kwargs():
    class Scale(nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    m = Scale()
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"factor": 3.0}), with_kwargs=True)
    m.register_forward_hook(lambda mod, args, kwargs, out: out + kwargs["factor"], with_kwargs=True)
    assert m(dyngrad.ones(1), factor=2.0).item() == 6.0


def test_bad_kwargs_pre_hook_result_raises(torch):
    for t in (torch, dyngrad):
        m = t.nn.Linear(2, 2)
        m.register_forward_pre_hook(lambda mod, a, k: 5, with_kwargs=True)
        with pytest.raises(
            RuntimeError,
            match=r"forward pre-hook must return None or a tuple "
            r"of \(new_args, new_kwargs\), but got 5.",
        ):
            m(t.ones(1, 2))


def test_always_call_hook_runs_on_exception():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    seen = []
    m = Boom()
    m.register_forward_hook(lambda mod, args, out: seen.append(out), always_call=True)
    m.register_forward_hook(lambda mod, args, out: seen.append("normal"))
    with pytest.raises(ValueError, match="boom"):
        m(dyngrad.ones(1))
    assert seen == [None]


def test_global_forward_hook():
    from dyngrad.nn.modules.hooks import register_module_forward_hook

    seen = []
    handle = register_module_forward_hook(lambda m, a, o: seen.append(type(m).__name__))
    try:
        nn.Sequential(nn.ReLU())(dyngrad.ones(1))
    finally:
        handle.remove()
    assert seen == ["ReLU", "Sequential"]
    nn.ReLU()(dyngrad.ones(1))
    assert len(seen) == 2


def test_every_hook_returns_a_removable_handle(lib):
    layer = lib.nn.Linear(2, 2)
    x = lib.ones(2, requires_grad=True)
    handles = [
        layer.register_forward_hook(lambda *a: None, with_kwargs=True),
        layer.register_forward_pre_hook(lambda *a: None),
        layer.register_full_backward_hook(lambda *a: None),
        layer.register_state_dict_pre_hook(lambda *a: None),
        x.register_hook(lambda g: g),
    ]
    assert {type(h).__name__ for h in handles} == {"RemovableHandle"}
    assert all(isinstance(h, lib.utils.hooks.RemovableHandle) for h in handles)


def test_removable_handle_clears_its_extra_dicts(lib):
    hooks, flags = OrderedDict(), OrderedDict()  # (PyTorch's holds them by weak reference)
    handle = lib.utils.hooks.RemovableHandle(hooks, extra_dict=flags)
    hooks[handle.id] = flags[handle.id] = "hook"
    with handle:
        assert handle.id in hooks
    assert hooks == {} and flags == {}
