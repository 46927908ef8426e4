"""Note [Straight-line replay]: a replay runs one generated forward and one generated backward,
whose source `replay_status` shows, and which give eager's values and gradients bit for bit
on every kind of step they write out or hand to the step runner."""

import numpy as np
import pytest

import dyngrad as torch


@pytest.fixture(autouse=True)
def _fresh():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _eager_and_compiled(fn, params, make_inputs, calls=4):
    """For each call: the output and every parameter's gradient, eager then compiled."""
    run = torch.compile(fn)
    for i in range(calls):
        inputs = make_inputs(i)
        got = []
        for f in (fn, run):
            for p in params:
                p.grad = None
            out = f(*inputs)
            out.sum().backward()
            got.append((out.detach().numpy().copy(), [p.grad.numpy().copy() for p in params]))
        (ea, eg), (ca, cg) = got
        assert np.array_equal(ea, ca)
        assert all(np.array_equal(a, b) for a, b in zip(eg, cg))
    (status,) = torch._dynamo.replay_status(run)
    assert status.refused is None and status.replayed == calls - 1
    return status.source


def _floats(*shape):
    return lambda i: (torch.randn(*shape),)


def test_the_generated_source_names_each_op_and_node_in_order():
    torch.manual_seed(0)
    w = torch.randn(4, 3, requires_grad=True)
    source = _eager_and_compiled(lambda x: (x @ w).relu().tanh(), [w], _floats(2, 4))
    forward, backward = source.split("def replay_backward")
    ops = [line.split("# ")[-1] for line in forward.splitlines() if "# " in line]
    assert ops == ["mm", "relu", "tanh"]
    nodes = [line.split("# ")[-1] for line in backward.splitlines() if line.startswith("    # ")]
    assert nodes == ["TanhBackward0", "ReluBackward0", "MmBackward0"]
    assert "run_step" not in forward and "_sum(" not in backward


def test_a_tensor_used_twice_sums_its_gradients_as_the_engine():
    torch.manual_seed(1)
    w = torch.randn(5, requires_grad=True)

    def f(x):
        y = x * w
        return y.sin() * y + y.exp()  # y's node gets three gradients

    source = _eager_and_compiled(f, [w], _floats(3, 5))
    assert "_sum(" in source


def test_promoted_inputs_take_the_step_runner_and_several_outputs_are_written_out():
    torch.manual_seed(2)
    w = torch.randn(6, requires_grad=True)

    def f(x, n):
        a, b = (x * w).chunk(2, dim=1)  # several outputs
        return (a * n + b).float()  # float32 times int64: promoted

    def inputs(i):
        return torch.randn(2, 6), torch.arange(6).reshape(2, 3) % (i + 2)

    source = _eager_and_compiled(f, [w], inputs)
    forward = source.split("def replay_backward")[0]
    assert "run_step(" in forward  # the product with the int64 tensor
    split = next(line for line in forward.splitlines() if line.endswith("# split"))
    step = split.split("= F")[1].split("(")[0]
    assert f"O{step}_1._data = _asarray(r[1])" in forward


def test_nodes_without_an_array_kernel_run_on_tensors():
    # complex gradients take each node's own apply (the array kernels are for real floats)
    torch.manual_seed(3)
    w = torch.randn(3, dtype=torch.complex64, requires_grad=True)

    def f(x):
        y = x * w
        return (y * y.conj()).real + y.abs() * 2

    source = _eager_and_compiled(f, [w], lambda i: (torch.randn(3, dtype=torch.complex64),))
    assert "_on_tensors(" in source


def test_no_gradient_needed_means_no_generated_backward():
    run = torch.compile(lambda x: x.relu() * 2)
    for _ in range(3):
        x = torch.randn(4)
        assert np.array_equal(run(x).numpy(), (x.relu() * 2).numpy())
    (status,) = torch._dynamo.replay_status(run)
    assert status.replayed == 2 and "replay_backward" not in status.source


def test_a_saved_parameter_changed_before_backward_still_raises_through_the_generated_code():
    w = torch.randn(3, requires_grad=True)

    def f(x):
        return (x * w) * w  # the second product saves w

    run = torch.compile(f)
    for _ in range(2):
        run(torch.randn(3)).sum().backward()
    for fn in (f, run):  # eager raises; so does a replay
        out = fn(torch.randn(3))
        with torch.no_grad():
            w.add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()
    assert torch._dynamo.replay_status(run)[0].replayed == 2
