"""The engine's passes: duplicate roots, which nodes run (and whose hooks fire) under grad()
and backward(inputs=), hook order, reentrant backward, and the declared observer events.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import warnings

import pytest

import dyngrad
from dyngrad.autograd.observers import EngineObserver, observers


def test_the_same_root_twice_sums_both_gradients(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    lib.autograd.backward([x, x], [lib.ones(2), lib.ones(2) * 2])
    assert x.grad.tolist() == [3.0, 3.0]
    y = x * 2
    lib.autograd.backward([y, y], [lib.ones(2), lib.ones(2) * 2])
    assert x.grad.tolist() == [9.0, 9.0]


def _hooked_chain(lib, log):
    a = lib.tensor(1.0, requires_grad=True)
    b = a * 2
    c = b * 2
    a.register_hook(lambda g: log.append("a tensor hook"))
    b.register_hook(lambda g: log.append("b tensor hook"))
    acc = b.grad_fn.next_functions[0][0]
    acc.register_hook(lambda gi, go: log.append("acc post"))
    acc.register_prehook(lambda g: log.append("acc pre"))
    b.grad_fn.register_hook(lambda gi, go: log.append("b fn post"))
    b.grad_fn.register_prehook(lambda g: log.append("b fn pre"))
    return a, b, c


def test_grad_runs_only_the_nodes_between_output_and_inputs(lib):
    log = []
    a, b, c = _hooked_chain(lib, log)
    lib.autograd.grad(c, (b,), retain_graph=True)
    assert log == ["b tensor hook"]  # b's node is not run: its gradient is only captured
    log.clear()
    lib.autograd.grad(c, (a,), retain_graph=True)
    assert log == ["b tensor hook", "b fn pre", "b fn post", "a tensor hook"]


def test_backward_with_inputs_runs_the_inputs_own_nodes(lib):
    log = []
    a, b, c = _hooked_chain(lib, log)
    c.backward(inputs=(b,), retain_graph=True)
    assert log == ["b tensor hook", "b fn pre", "b fn post"]  # a's AccumulateGrad never runs
    assert a.grad is None and b.retains_grad and b.grad.item() == 2.0
    log.clear()
    c.backward(inputs=(a,), retain_graph=True)
    expected = ["b tensor hook", "b fn pre", "b fn post", "a tensor hook", "acc pre", "acc post"]
    assert log == expected
    assert a.grad.item() == 4.0


def test_a_captured_gradient_is_taken_before_the_hooks_when_its_node_runs(lib):
    a = lib.tensor(1.0, requires_grad=True)
    b = a * 2
    c = b * 2
    b.register_hook(lambda g: g * 10)
    gb, ga = lib.autograd.grad(c, (b, a), retain_graph=True)
    assert (gb.item(), ga.item()) == (2.0, 40.0)  # PyTorch's order, kept as it is
    assert lib.autograd.grad(c, (b,))[0].item() == 20.0


def test_tensor_hooks_run_before_retain_grad_and_node_prehooks(lib):
    log = []
    x = lib.tensor(1.0, requires_grad=True)
    y = x * 3
    y.retain_grad()
    y.grad_fn.register_prehook(lambda g: log.append("node pre"))
    y.register_hook(lambda g: log.append(("tensor hook", y.grad)))
    (y * 2).backward()
    assert log == [("tensor hook", None), "node pre"]


def test_leaf_hooks_in_pytorch_order(lib):
    log = []
    x = lib.tensor(1.0, requires_grad=True)
    x.register_hook(lambda g: log.append("tensor hook"))
    x.register_post_accumulate_grad_hook(lambda t: log.append(("post acc", t.grad.item())))
    acc = (x * 1).grad_fn.next_functions[0][0]
    acc.register_prehook(lambda g: log.append("acc pre"))
    acc.register_hook(lambda gi, go: log.append(("acc post", len(gi), len(go))))
    (x * 2).backward()
    assert log == ["tensor hook", "acc pre", ("post acc", 2.0), ("acc post", 0, 1)]


def test_an_accumulate_grad_prehook_may_replace_the_gradient(lib):
    a = lib.tensor(1.0, requires_grad=True)
    acc = (a * 1).grad_fn.next_functions[0][0]
    acc.register_prehook(lambda g: (g[0] * 100,))
    (a * 2).backward()
    assert a.grad.item() == 200.0


def test_retained_grad_under_create_graph_is_a_recorded_clone(lib):
    x = lib.tensor(2.0, requires_grad=True)
    y = x * x
    y.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the create_graph reference-cycle warning
        (y * y).backward(create_graph=True)
    assert y.grad.item() == 8.0
    assert type(y.grad.grad_fn).__name__ == "CloneBackward0"
    assert type(x.grad.grad_fn).__name__ == "CopyBackwards"
    x.grad = None


class _DeepReentrant:
    """A custom Function whose backward runs a backward of its own, `n` levels deep."""

    @staticmethod
    def make(lib):
        class DeepReentrant(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                with lib.enable_grad():
                    ctx.x = lib.autograd.Variable(x.detach(), requires_grad=True) - 1
                return ctx.x.detach()

            @staticmethod
            def backward(ctx, g):
                if ctx.x < 0:
                    return g
                with lib.enable_grad():
                    DeepReentrant.apply(ctx.x).sum().backward()
                return g

        return DeepReentrant


def test_a_deep_reentrant_chain_completes(lib):
    DeepReentrant = _DeepReentrant.make(lib)
    v = lib.tensor(3000.0, requires_grad=True)
    DeepReentrant.apply(v).sum().backward()
    assert v.grad.item() == 1.0
    v2 = lib.tensor(100.0, requires_grad=True)  # and again, after the first chain
    DeepReentrant.apply(v2).sum().backward()
    assert v2.grad.item() == 1.0


def test_reentrant_backward_inside_a_backward_gives_the_inner_gradients(lib):
    y_data = lib.tensor([[1.0, 2.0], [3.0, 4.0]])

    class Reenter(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with lib.enable_grad():
                ctx.x = lib.autograd.Variable(x, requires_grad=True)
                ctx.out = ctx.x * lib.autograd.Variable(y_data, requires_grad=True)
            return ctx.out.detach()

        @staticmethod
        def backward(ctx, g):
            with lib.enable_grad():
                ctx.out.sum().backward()
            return ctx.x.grad * g

    x = lib.ones(2, 2, requires_grad=True)
    Reenter.apply(x).sum().backward()
    assert x.grad.tolist() == y_data.tolist()


def test_variable_is_a_new_leaf_sharing_the_version_counter(lib):
    x = lib.randn(2)
    v = lib.autograd.Variable(x, requires_grad=True)
    assert v is not x and v.is_leaf and v.requires_grad and not x.requires_grad
    with lib.no_grad():
        v.add_(1)
    assert x._version == v._version == 1
    assert isinstance(x, lib.autograd.Variable)
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        lib.autograd.Variable([1, 2])


class _Recorder(EngineObserver):
    def __init__(self):
        self.events = []

    def pass_started(self, task, roots):
        self.events.append(("start", task.keep_graph))

    def pass_finished(self, task):
        self.events.append(("end",))

    def pass_failed(self, task, exc):
        self.events.append(("failed", type(exc).__name__))

    def node_finished(self, node, outputs):
        self.events.append(("node", node.name()))

    def leaf_accumulating(self, variable, grad):
        self.events.append(("leaf", grad.tolist()))


def test_engine_observers_see_passes_nodes_and_leaves():
    recorder = _Recorder()
    observers.add(recorder)
    try:
        x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        (x * 3).sum().backward(retain_graph=True)
    finally:
        observers.remove(recorder)
    assert recorder.events == [
        ("start", True),
        ("node", "SumBackward0"),
        ("node", "MulBackward0"),
        ("leaf", [3.0, 3.0]),
        ("end",),
    ]
    assert not observers.passes and not observers.nodes and not observers.leaves


def test_engine_observers_see_a_failed_pass():
    recorder = _Recorder()
    observers.add(recorder)
    try:
        x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward()
        with pytest.raises(RuntimeError):
            y.backward()
    finally:
        observers.remove(recorder)
    assert recorder.events[-1] == ("failed", "RuntimeError")
