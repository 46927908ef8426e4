"""The compiled backward (Note [Compiled backward]): a compiled call's captured graph runs as one
program, not an engine pass, and gives eager's gradients bit for bit; whatever it does not
model (hooks, anomaly mode) goes through the engine."""

import numpy as np
import pytest

import dyngrad as torch
from dyngrad._dynamo import compiled_node


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, g):
        return g * 3


def _busy(w, b):
    # fan-out (x used four times: sums made in place), a multi-output op, a node without an
    # array kernel (cumsum runs its formula on tensors), an in-place op on a view (CopySlices),
    # a custom Function and a matmul with a transposed weight
    def f(x):
        h = x @ w.t() + b
        a, c = h.chunk(2, dim=1)
        y = a.tanh() * c.sigmoid() + a * a + a.cumsum(0)
        z = y.clone()
        z[:, 0] *= 2
        return (Scale.apply(z) + x[:, :2] * 4).sum(), y

    return f


def _grads(fn, *leaves):
    for leaf in leaves:
        leaf.grad = None
    loss, y = fn()
    loss.backward()
    return [leaf.grad.numpy().copy() for leaf in leaves], y.detach().numpy().copy()


@pytest.fixture
def program_runs(monkeypatch):
    """Fail if the compiled node falls back to the engine (the program must run)."""
    calls = []
    original = compiled_node.CompiledFunctionBackward._through_engine

    def watched(self, grads):
        calls.append(self)
        return original(self, grads)

    monkeypatch.setattr(compiled_node.CompiledFunctionBackward, "_through_engine", watched)
    return calls


def test_gradients_equal_eager_bit_for_bit(program_runs):
    torch.manual_seed(0)
    w = torch.randn(4, 3, requires_grad=True)
    b = torch.randn(4, requires_grad=True)
    x = torch.randn(5, 3, requires_grad=True)
    f = _busy(w, b)
    eager, y_eager = _grads(lambda: f(x), w, b, x)
    compiled = torch.compile(f)
    for _ in range(3):  # the capturing call, then cached calls
        got, y = _grads(lambda: compiled(x), w, b, x)
        assert all(np.array_equal(e, g) for e, g in zip(eager, got))
        assert np.array_equal(y, y_eager)
    assert not program_runs


def test_root_gradient_is_not_adopted_by_a_leaf(program_runs):
    # AddBackward0 hands the root gradient on unchanged: the leaf must copy it, as in eager
    a = torch.zeros(3, requires_grad=True)
    out = torch.compile(lambda t: t + 1)(a)
    g = torch.ones(3)
    out.backward(g)
    g.add_(5)
    assert a.grad.tolist() == [1.0, 1.0, 1.0]
    assert not program_runs


def test_retain_graph_runs_twice_and_frees_otherwise(program_runs):
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    out = torch.compile(lambda x: (x * w).exp().sum())(torch.ones(2))
    out.backward(retain_graph=True)
    first = w.grad.clone()
    out.backward()
    assert torch.equal(w.grad, 2 * first)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        out.backward()
    inner = out.grad_fn.captured[0].next_functions[0][0]  # the captured ExpBackward0: freed
    assert inner.name() == "ExpBackward0"
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        inner(torch.ones(2))
    assert not program_runs


def test_autograd_grad_to_an_input(program_runs):
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    out = torch.compile(lambda t: (t.sin() * t).sum())(x)
    (gx,) = torch.autograd.grad(out, x)
    assert np.array_equal(gx.numpy(), (x.cos() * x + x.sin()).detach().numpy())
    assert not program_runs


def test_hook_inside_the_call_goes_through_the_engine(program_runs):
    seen = []

    def f(x):
        h = x * 2
        h.register_hook(lambda g: seen.append(g.clone()) or g * 10)
        return h.exp().sum()

    x = torch.tensor([0.0, 1.0], requires_grad=True)
    torch.compile(f)(x).backward()
    assert len(program_runs) == 1 and len(seen) == 1
    assert np.allclose(seen[0].numpy(), np.exp([0.0, 2.0]))
    assert np.allclose(x.grad.numpy(), 20 * np.exp([0.0, 2.0]))


def test_anomaly_mode_goes_through_the_engine(program_runs):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.detect_anomaly():
        torch.compile(lambda t: (t * t).sum())(x).backward()
    assert len(program_runs) == 1
    assert x.grad.tolist() == [2.0, 4.0]


def test_output_used_twice_and_unused_output(program_runs):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a, b = torch.compile(lambda t: (t.exp(), t.log()))(x)
    (a * a).sum().backward()  # b gets no gradient: its part of the program does not run
    assert np.array_equal(x.grad.numpy(), (2 * x.exp() * x.exp()).detach().numpy())
    assert not program_runs


def test_describe_and_make_dot_show_the_captured_graph():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    out = torch.compile(model)(torch.randn(2, 3)).sum()
    lines = torch.autograd.graph.describe(out).splitlines()
    assert lines[:3] == [
        "SumBackward0",
        "  CompiledFunctionBackward",
        "    [captured] AddmmBackward0",
    ]
    captured = [line.strip() for line in lines if "[captured]" in line]
    assert sorted(captured) == sorted(
        ["[captured] AddmmBackward0"] * 2
        + ["[captured] ReluBackward0"]
        + ["[captured] TBackward0"] * 2
    )
    assert sum("AccumulateGrad" in line for line in lines) == 4  # the node's own edges
    pytest.importorskip("graphviz")
    from dyngrad.viz import make_dot

    source = make_dot(out).source
    assert "cluster_captured_" in source and source.count("AddmmBackward0") == 2


def test_a_tensor_kept_from_the_call_gets_both_gradients(lib):
    # `h` leaves the call through a dict and is used after it: its node gets the gradient
    # from outside too (PyTorch makes it an output of the compiled graph)
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    kept = {}

    def f(x):
        h = (x * w).exp()
        kept["h"] = h
        return (h * 3).sum()

    compiled = lib.compile(f, backend="aot_eager")
    (compiled(lib.ones(2)) + kept["h"].sum()).backward()
    assert np.allclose(w.grad.tolist(), [4 * np.exp(1.0), 4 * np.exp(2.0)])


def test_multi_output_rows_with_one_output_take_a_tuple(program_runs):
    # `split` into one piece: a variadic row's kernel takes a tuple of gradients even of one
    x = torch.randn(6, 3, requires_grad=True)

    def f(t):
        (a,) = t.split(6)
        b, c = t.split([2, 4])
        return (a * 2).sum() + b.exp().sum() + c.sin().sum()

    f(x).backward()
    eager, x.grad = x.grad.numpy().copy(), None
    torch.compile(f)(x).backward()
    assert np.array_equal(eager, x.grad.numpy())
    assert not program_runs


def test_in_place_change_of_an_output_is_caught_as_in_eager(lib):
    # the output shares its version counter with the tensor ExpBackward0 saved
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    out = lib.compile(lambda x: (x * w).exp(), backend="aot_eager")(lib.ones(2))
    out.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_a_view_of_an_intermediate_is_an_output_of_the_node(lib):
    w = lib.ones(4, 3, requires_grad=True)
    out = lib.compile(lambda x: (x @ w).relu().reshape(-1), backend="aot_eager")(lib.ones(2, 4))
    assert out.grad_fn.name() == "CompiledFunctionBackward" and out._base is None


def test_a_model_ending_in_a_reshape_runs_the_program(program_runs):
    torch.manual_seed(0)
    w = torch.randn(4, 3, requires_grad=True)

    def f(x):
        return (x @ w).relu().reshape(-1)

    x = torch.randn(2, 4)
    (f(x) * torch.arange(6.0)).sum().backward()
    eager, w.grad = w.grad.numpy().copy(), None
    (torch.compile(f)(x) * torch.arange(6.0)).sum().backward()
    assert np.array_equal(eager, w.grad.numpy())
    assert not program_runs
