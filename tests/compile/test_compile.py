"""torch.compile's surface: values and gradients as eager, OptimizedModule, fullgraph errors,
logs of breaks and recompiles, explain's layout, config, disable, is_compiling."""

import os
import subprocess
import sys

import numpy as np
import pytest

import dyngrad

BACKEND = "aot_eager"  # torch's backend that needs no C compiler and still builds the backward


def _branchy(torch, w):
    def f(x):
        y = (x * w).sin()
        if y.sum() > 0:
            y = y * 2
        print_free = y.exp()
        return print_free.sum(), y

    return f


def test_compiled_values_and_gradients_equal_eager_bit_for_bit():
    torch = dyngrad
    torch.manual_seed(0)
    w = torch.randn(5, requires_grad=True)
    x = torch.randn(5, requires_grad=True)
    f = _branchy(torch, w)
    loss, y = f(x)
    loss.backward()
    eager = (loss.detach().numpy().copy(), w.grad.numpy().copy(), x.grad.numpy().copy())
    w.grad = x.grad = None
    loss, y2 = torch.compile(f)(x)
    loss.backward()
    assert np.array_equal(loss.detach().numpy(), eager[0])
    assert np.array_equal(w.grad.numpy(), eager[1]) and np.array_equal(x.grad.numpy(), eager[2])
    assert np.array_equal(y2.detach().numpy(), y.detach().numpy())


def test_compiled_mlp_step_equals_eager_bit_for_bit():
    torch = dyngrad
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    x, target = torch.randn(4, 8), torch.tensor([0, 2, 1, 1])
    torch.nn.functional.cross_entropy(model(x), target).backward()
    eager = [p.grad.numpy().copy() for p in model.parameters()]
    model.zero_grad()
    compiled = torch.compile(model)
    torch.nn.functional.cross_entropy(compiled(x), target).backward()
    assert all(np.array_equal(p.grad.numpy(), g) for p, g in zip(model.parameters(), eager))


def test_output_hangs_from_one_compiled_function_backward(lib):
    w = lib.ones(3, requires_grad=True)
    compiled = lib.compile(lambda x: (x * w).sin() * 2, backend=BACKEND)
    out = compiled(lib.ones(3))
    assert out.grad_fn.name() == "CompiledFunctionBackward"
    assert any(type(n).__name__ == "AccumulateGrad" for n, _ in out.grad_fn.next_functions if n)
    out.sum().backward()
    assert lib.allclose(w.grad, 2 * lib.ones(3).cos())


def test_no_node_under_no_grad(lib):
    w = lib.ones(3, requires_grad=True)
    compiled = lib.compile(lambda x: x * w, backend=BACKEND)
    with lib.no_grad():
        assert compiled(lib.ones(3)).grad_fn is None


def test_second_backward_through_compiled_node_raises(lib):
    w = lib.ones(3, requires_grad=True)
    out = lib.compile(lambda x: (x * w).exp(), backend=BACKEND)(lib.ones(3)).sum()
    out.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        out.backward()


def test_double_backward_through_compiled_node_raises():
    w = dyngrad.ones(3, requires_grad=True)
    out = dyngrad.compile(lambda x: (x * w).exp())(dyngrad.ones(3)).sum()
    with pytest.raises(RuntimeError, match="does not currently support double backward"):
        dyngrad.autograd.grad(out, w, create_graph=True)


def test_optimized_module(lib):
    model = lib.nn.Linear(3, 2)
    compiled = lib.compile(model, backend=BACKEND)
    assert type(compiled).__name__ == "OptimizedModule"
    assert isinstance(compiled, lib._dynamo.OptimizedModule)
    assert compiled._orig_mod is model and compiled.weight is model.weight
    assert list(compiled.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
    assert compiled(lib.ones(4, 3)).shape == (4, 2)
    compiled.eval()
    assert not model.training


def test_module_compile_in_place(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(3, 2)

        def forward(self, x):
            return self.lin(x).tanh()

    model = Net()
    assert model.compile(backend=BACKEND) is None
    out = model(lib.ones(1, 3))
    assert list(model.state_dict()) == ["lin.weight", "lin.bias"]
    builtin = lib.nn.Linear(3, 2)
    builtin.compile(backend=BACKEND)  # torch's own module: Dynamo skips its frames
    assert builtin(lib.ones(1, 3)).grad_fn.name() == "AddmmBackward0"
    assert out.grad_fn.name() == "CompiledFunctionBackward"


def test_decorator_forms(lib):
    @lib.compile
    def f(x):
        return x + 1

    @lib.compile(backend=BACKEND, fullgraph=True)
    def g(x):
        return x * 2

    assert f(lib.ones(2)).tolist() == [2.0, 2.0] and g(lib.ones(2)).tolist() == [2.0, 2.0]
    assert f.__name__ == "f"


def _prints(x):
    y = x + 1
    print("fullgraph")
    return y


def _items(x):
    return x * x.sum().item()


def _tolist(x):
    return x * len(x.tolist())


def test_fullgraph_captures_item(lib):
    lib._dynamo.reset()
    assert lib.compile(_items, backend="eager", fullgraph=True)(lib.ones(3)).tolist() == [3.0] * 3


def _branches(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


@pytest.mark.parametrize(
    "fn, first",
    [
        (_prints, "Failed to trace builtin operator"),
        (_tolist, "Tensor.tolist() with non-integer tensor"),
        (_branches, "Data-dependent branching"),
    ],
)
def test_fullgraph_raises_at_first_break(lib, fn, first, capsys):
    lib._dynamo.reset()
    with pytest.raises(lib._dynamo.exc.Unsupported) as info:
        lib.compile(fn, backend="eager", fullgraph=True)(lib.ones(3))
    assert str(info.value).splitlines()[0] == first
    assert isinstance(info.value, RuntimeError)
    assert "fullgraph" not in capsys.readouterr().out  # the print never ran


def _grows(x):
    return x * 2


def test_recompile_log_names_the_guard(lib, capfd):
    lib._dynamo.reset()
    lib._logging.set_logs(recompiles=True)
    try:
        compiled = lib.compile(_grows, backend="eager")
        for n in (3, 5, 7):  # the second size makes dim 0 dynamic: one recompile only
            compiled(lib.ones(n))
    finally:
        lib._logging.set_logs()
    err = capfd.readouterr().err
    code = _grows.__code__
    assert err.count("Recompiling function _grows") == 1
    assert f"Recompiling function _grows in {code.co_filename}:{code.co_firstlineno}" in err
    assert "tensor 'x' size mismatch at index 0. expected 3, actual 5" in err


def test_graph_break_log_names_the_user_line(lib, capfd):
    lib._dynamo.reset()
    lib._logging.set_logs(graph_breaks=True)
    try:
        lib.compile(_branches, backend="eager")(lib.ones(3))
    finally:
        lib._logging.set_logs()
    err = capfd.readouterr().err
    line = _branches.__code__.co_firstlineno + 1
    assert f"Graph break in user code at {__file__}:{line}" in err
    assert "Graph Break Reason: Data-dependent branching" in err
    assert "if x.sum() > 0:" in err


def test_torch_logs_environment_variable():
    script = (
        "import dyngrad as torch\n"
        "def f(x):\n"
        "    y = x + 1\n"
        "    print('between')\n"
        "    return y\n"
        "torch.compile(f)(torch.ones(2))\n"
    )
    env = dict(os.environ, TORCH_LOGS="graph_breaks")
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert "[__graph_breaks] Graph break in user code at <string>:4" in run.stderr
    assert "Graph Break Reason: Failed to trace builtin operator" in run.stderr


def test_recompile_limit_falls_back_to_eager():
    dyngrad._dynamo.reset()
    compiled = dyngrad.compile(_grows, dynamic=False)
    limit = dyngrad._dynamo.config.cache_size_limit
    with pytest.warns(UserWarning, match=r"hit config.recompile_limit \(8\)"):
        for n in range(1, limit + 2):
            out = compiled(dyngrad.ones(n, requires_grad=True))
    assert out.grad_fn.name() == "MulBackward0"  # eager from then on


def test_explain_layout(lib, capsys):
    lib._dynamo.reset()
    out = lib._dynamo.explain(_prints)(lib.ones(3))
    text = str(out)
    assert text.startswith("Graph Count: 1\nGraph Break Count: 0\nOp Count: ")
    assert "Break Reasons:\n  Break Reason 1:\n    Reason: Failed to trace builtin operator" in text
    assert f"    User Stack:\n      <FrameSummary file {__file__}, line " in text
    assert "\nOps per Graph:\n  Ops 1:\n" in text and "\nOut Guards:\n  Guard 1:\n" in text
    assert out.break_reasons[0].user_stack[0].lineno == _prints.__code__.co_firstlineno + 2


def test_capture_scalar_outputs_keeps_item_in_the_graph(lib):
    lib._dynamo.reset()
    lib._dynamo.config.capture_scalar_outputs = True
    try:
        out = lib._dynamo.explain(_items)(lib.ones(3))
    finally:
        lib._dynamo.config.capture_scalar_outputs = False
    assert (out.graph_count, out.graph_break_count) == (1, 0)


def test_config_and_exceptions(lib):
    config = lib._dynamo.config
    assert (config.cache_size_limit, config.capture_scalar_outputs, config.suppress_errors) == (
        8,
        False,
        False,
    )
    exc = lib._dynamo.exc
    assert issubclass(exc.Unsupported, exc.TorchDynamoException)
    assert issubclass(exc.TorchDynamoException, RuntimeError)


def test_is_compiling_and_disable(lib):
    seen = []

    @lib.compiler.disable
    def eager_part(x):
        seen.append(lib.compiler.is_compiling())
        return x - 1

    def f(x):
        seen.append(lib.compiler.is_compiling())
        return eager_part(x * 2)

    lib._dynamo.reset()
    assert lib.compile(f, backend="eager")(lib.ones(2)).tolist() == [1.0, 1.0]
    assert seen == [True, False] and not lib.compiler.is_compiling()
    lib.compiler.reset()


def test_disable_flag_runs_eagerly(lib):
    w = lib.ones(2, requires_grad=True)
    out = lib.compile(lambda x: x * w, disable=True)(lib.ones(2))
    assert out.grad_fn.name() == "MulBackward0"


def test_nested_compiled_function_is_inlined():
    inner = dyngrad.compile(lambda x: x.sin() * 2)

    def outer(x):
        return inner(x + 1).exp()

    out = dyngrad._dynamo.explain(outer)(dyngrad.ones(3))
    assert (out.graph_count, out.ops_per_graph) == (1, [["add", "sin", "mul", "exp"]])
    w = dyngrad.ones(3, requires_grad=True)
    result = dyngrad.compile(outer)(w)
    assert result.grad_fn.name() == "CompiledFunctionBackward"
    (edge,) = result.grad_fn.next_functions  # one node over the inlined inner call too
    assert edge[0].variable is w


def test_train_eval_switch_recompiles(capfd):
    dyngrad._dynamo.reset()
    model = dyngrad.compile(dyngrad.nn.Sequential(dyngrad.nn.Linear(2, 2), dyngrad.nn.Dropout()))
    dyngrad._logging.set_logs(recompiles=True)
    try:
        model(dyngrad.ones(1, 2))
        model.eval()
        model(dyngrad.ones(1, 2))
        model(dyngrad.ones(1, 2))
    finally:
        dyngrad._logging.set_logs()
    err = capfd.readouterr().err
    assert err.count("Recompiling function forward") == 1
    assert "L['self'].training == True" in err


def test_no_grad_across_a_break_matches_eager():
    def f(x, w):
        with dyngrad.no_grad():
            y = x * w
            print_free = float(y.sum())  # a break inside no_grad
            z = y + print_free
        return (z * w).sum()

    w = dyngrad.arange(3.0, requires_grad=True)
    x = dyngrad.ones(3)
    f(x, w).backward()
    eager = w.grad.numpy().copy()
    w.grad = None
    out = dyngrad.compile(f)(x, w)
    out.backward()
    assert np.array_equal(w.grad.numpy(), eager)
    explained = dyngrad._dynamo.explain(f)(x, w)
    assert (explained.graph_count, explained.graph_break_count) == (2, 1)


def test_unknown_backend_raises_invalid_backend(lib):
    with pytest.raises(lib._dynamo.exc.InvalidBackend, match="Invalid backend: 'nope'"):
        lib.compile(lambda x: x, backend="nope")
    assert "inductor" in lib._dynamo.list_backends()


_ITEM_SCRIPT = """
import {lib} as torch

def f(x):
    y = x * 2
    s = y.sum().item()
    return y + s

compiled = torch.compile(f, backend="eager")
compiled(torch.ones(3))
compiled(torch.ones(3))
torch.compile(lambda x: x.sum().item(), backend="eager")(torch.ones(2))  # warned once only
"""


def _warning_lines(lib_name: str, tmp_path) -> list:
    script = tmp_path / f"item_{lib_name}.py"
    script.write_text(_ITEM_SCRIPT.format(lib=lib_name))
    env = {k: v for k, v in os.environ.items() if k != "TORCH_LOGS"}
    run = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    # the text after each line's header ("W1202 07:28:00.553000 6002 <site>] [0/0] ")
    return [line.split("] ", 2)[2] for line in run.stderr.splitlines() if line.startswith("W")]


def test_the_first_item_break_warns_by_default_as_torch(tmp_path):
    ours = _warning_lines("dyngrad", tmp_path)
    assert ours[0] == "Graph break from `Tensor.item()`, consider setting:"
    assert "    s = y.sum().item()" in ours and "        ^^^^^^^^^^^^^^" in ours
    assert ours.count(ours[0]) == 1  # once per process
    pytest.importorskip("torch")
    theirs = [
        line.replace("item_torch", "item_dyngrad") for line in _warning_lines("torch", tmp_path)
    ]
    assert ours == theirs
