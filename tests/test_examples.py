"""The examples run as scripts and print what the same scripts print under real PyTorch."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import dyngrad

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
GRAPH_GUIDE = EXAMPLES.parent / "docs" / "graph.md"
SRC = Path(dyngrad.__file__).resolve().parents[1]
TIMEOUT = 180


def resolves(dotted: str) -> bool:
    """Whether `dyngrad.<dotted>` exists (`nn.Linear`, `utils.data.DataLoader`, `save`)."""
    obj, parts = dyngrad, dotted.split(".")
    for i, part in enumerate(parts):
        if not hasattr(obj, part):
            try:  # a subpackage not imported yet; a half-built one may fail in any way
                importlib.import_module("dyngrad." + ".".join(parts[: i + 1]))
            except Exception:
                return False
        obj = getattr(obj, part, None)
        if obj is None:
            return False
    return True


# What the nn / optim / data examples use (issue 4); each example lists what it needs.
MODEL = ("nn.Module", "nn.Linear", "nn.Sequential", "nn.ReLU", "nn.Dropout")
DATA = ("utils.data.DataLoader", "utils.data.TensorDataset")
TRAIN_MLP_NEEDS = (*MODEL, "nn.CrossEntropyLoss", "optim.Adam", *DATA)


@dataclass(frozen=True)
class Example:
    """An example script, the lines it must print (in order), and how to compare with torch.

    `expect` lines are compared after `normalize` (so `0x…` for addresses, `<id>` for ids and,
    when `parity == "masked"`, `<f>` for decimals); each was checked against torch 2.13.
    `parity`: "exact" compares the whole normalized stdout with torch's, "masked" compares it
    with decimals masked (random weights differ), "" compares nothing. While a name in
    `needs` is missing from dyngrad, the example's tests are expected to fail.
    """

    name: str
    expect: tuple[str, ...]
    parity: str = "exact"
    needs: tuple[str, ...] = ()  # names under dyngrad that other issues are still building
    torch_prelude: str = ""
    requires: tuple[str, ...] = ()  # optional packages it needs; skipped without them


# torch has no text view of its graph; this one walks torch's graph as dyngrad's `describe`
# walks dyngrad's, so the parity run checks that both graphs have the same shape.
DESCRIBE_FOR_TORCH = """
def _describe(tensor):
    lines, seen = [], set()
    def walk(n, depth):
        if n is None:
            return
        label = n.name()
        if hasattr(n, "variable"):
            label += f" (leaf {tuple(n.variable.shape)} {n.variable.dtype})"
        if id(n) in seen:
            lines.append("  " * depth + label + " (seen above)")
            return
        seen.add(id(n))
        lines.append("  " * depth + label)
        for child, _ in n.next_functions:
            walk(child, depth + 1)
    walk(tensor.grad_fn, 0)
    return "\\n".join(lines)
torch.autograd.graph.describe = _describe
"""

CATALOGUE = [
    Example(
        "seed000_graph_basics",
        (
            "loss.grad_fn: <SumBackward0 object at 0x…>",
            "y.grad_fn: <AddBackward0 object at 0x…>",
            "x.is_leaf: True, x.grad_fn: None",
            "b.requires_grad: False",
            "b.is_leaf: True, b.grad_fn: None",
            "x.grad: tensor([3.]), w.grad: tensor([2.]), b.grad: None",
        ),
    ),
    Example(
        "seed000_graph_lifetime",
        (
            "<MulBackward0 object at 0x…>",
            "<MulBackward0 object at 0x…>",  # still there after backward (SEED-ERRATA)
            "second backward: Trying to backward through the graph a second time (or directly "
            "access saved tensors after they have already been freed)",
            "x.grad: tensor([5.])",
            "Iter 0: id(z.grad_fn)=<id>",
            "Iter 1: id(z.grad_fn)=<id>",
            "two different nodes: True",
            "<MulBackward0 object at 0x…>",
            "a.grad: tensor([4.])",
        ),
    ),
    Example(
        "seed000_compile_graph_breaks",
        (
            "graphs: 3 breaks: 2",
            "  line 15: generic_jump TensorVariable()",
            "  line 17: Unsupported Tensor.item() call with capture_scalar_outputs=False",
            "Unsupported: Data-dependent branching",
            "CompiledFunctionBackward",
            "same gradients: True",
        ),
    ),
    Example(
        "seed003_dynamic_graph",
        (
            "<PowBackward0 object at 0x…>",
            "RuntimeError: grad can be implicitly created only for scalar outputs",
            "x.grad after method 1: tensor([2., 2., 2.])",
            "x.grad after method 2: tensor([4., 4., 4.])",
            "RuntimeError: Trying to backward through the graph a second time (or directly access "
            "saved tensors after they have already been freed)",
            "x.grad: tensor([6.])",
            "tensor([2.])",
            "tensor([4.])",
            "tensor([6.])",
            "RuntimeError: Trying to backward through the graph a second time (or directly access "
            "saved tensors after they have already been freed)",
            "tensor([2.])",
            "tensor([2.])",
            "tensor([2.])",
        ),
    ),
    Example(
        "seed003_debugging",
        (
            "AddBackward0",
            "  PowBackward0",
            "    torch::autograd::AccumulateGrad (leaf (1,) torch.float32)",
            "  MulBackward0",
            "    torch::autograd::AccumulateGrad (leaf (1,) torch.float32) (seen above)",
            "grad_check as written raises TypeError: allclose(): argument 'input' (position 1) must "
            "be Tensor, not NoneType",
            "grad_check_fixed: True",
            "gradcheck: True",
            "False False",
            "False",
            "True",
        ),
        needs=("allclose",),
        torch_prelude=DESCRIBE_FOR_TORCH,
    ),
    Example(
        "seed004_autograd",
        (
            "SumBackward0 ['AddBackward0']",
            "tensor([3., 4.])",
            "tensor([1., 2.])",
            "None",
            "False True",
            "tensor([1., 1.])",
            "tensor([6., 8.])",
            "True True True",
        ),
    ),
    Example(
        "seed004_accumulation",
        (
            "step 0: grad 6.0",
            "step 1: grad 12.0",
            "step 2: grad 18.0",  # not 4.0, no error
            "step 0 with zeroing: grad 6.0",
            "step 1 with zeroing: grad 6.0",
            "step 2 with zeroing: grad 6.0",
        ),
    ),
    Example(
        "seed004_layer_grads",
        (
            "layer1.weight: grad shape torch.Size([20, 10]), grad mean 0.031080",
            "layer1.bias: grad shape torch.Size([20]), grad mean 0.202020",
            "layer2.weight: grad shape torch.Size([5, 20]), grad mean 0.444545",
            "layer2.bias: grad shape torch.Size([5]), grad mean 0.536656",
            "layer3.weight: grad shape torch.Size([1, 5]), grad mean 3.942176",
            "layer3.bias: grad shape torch.Size([1]), grad mean 4.000000",
            "unused.weight: gradient is None",
            "unused.bias: gradient is None",
            "RuntimeError: only Tensors of floating point dtype can require gradients",
        ),
    ),
    Example(
        "seed004_custom_scale",
        (
            "tensor([2., 4., 6.], grad_fn=<CustomScaleBackward>)",
            "CustomScaleBackward",
            "tensor([2., 2., 2.]) tensor(6.)",
            "True",
            "RuntimeError: function BadScaleBackward returned an incorrect number of gradients "
            "(expected 2, got 1)",
        ),
    ),
    Example(
        "seed004_stable_softmax",
        (
            "tensor([[0.0900, 0.2447, 0.6652],",
            "        [0.4223, 0.4223, 0.1554]], grad_fn=<StableSoftmaxBackward>)",
            "tensor([[0.0900, 0.2447, 0.6652],",
            "        [   nan,    nan,    nan]], grad_fn=<DivBackward0>)",
            "tensor([[ 0.1418,  0.1408, -0.2826],",
            "        [-0.2347,  0.3988, -0.1640]])",
            "True",
        ),
    ),
    Example(
        "seed004_detect_anomaly",
        (
            "RuntimeError: Function 'LogBackward0' returned nan values in its 0th output.",
            "tensor(-inf, grad_fn=<MinBackward1>) tensor(0., grad_fn=<MaxBackward1>) tensor(False)",
            "tensor([nan, 0.])",
        ),
        needs=("isfinite",),
    ),
    Example(
        "seed004_simplenet",
        (
            "layer1.weight: grad shape torch.Size([20, 10]), grad mean <f>",
            "layer1.bias: grad shape torch.Size([20]), grad mean <f>",
            "layer2.weight: grad shape torch.Size([5, 20]), grad mean <f>",
            "layer2.bias: grad shape torch.Size([5]), grad mean <f>",
            "layer3.weight: grad shape torch.Size([1, 5]), grad mean <f>",
            "layer3.bias: grad shape torch.Size([1]), grad mean <f>",
            "layer1.weight: gradient is None",
            "extra.weight: gradient is None",
            "extra.bias: gradient is None",
        ),
        parity="masked",
        needs=MODEL,
    ),
    Example(
        "seed004_inference",
        (
            "(16, 1) False None",
            "(16, 1) False None",
            "(8, 1) False None",
            "False",
            "True",
            "False",
            "True",
            "False",
            "False None",
        ),
        needs=(*MODEL, *DATA, "equal"),
    ),
    Example(
        "seed004_save_load",
        (
            "['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']",
            "True",
            "Error(s) in loading state_dict for ModelClass:",
            "size mismatch for fc1.weight: copying a param with shape torch.Size([32, 20]) from "
            "checkpoint, the shape in current model is torch.Size([16, 20]).",
        ),
        needs=(*MODEL, "save", "load"),
    ),
    Example(
        "seed004_training_skeleton",
        tuple(f"Epoch {i}: avg loss <f>" for i in range(5)) + ("float 8",),
        parity="masked",
        needs=(*MODEL, "nn.MSELoss", "optim.Adam", *DATA),
    ),
    Example(
        "amp_training",
        (
            "prediction dtype under autocast: torch.bfloat16 | loss dtype: torch.float32",
            "gradient dtype: torch.float32 | scale: <f>",
            *(f"epoch {i}: float32 <f>  bfloat16 autocast <f>" for i in range(6)),
            "loss curves within 10%: True | loss fell: True",
        ),
        parity="masked",
        needs=(*MODEL, "nn.MSELoss", "optim.Adam", "amp.GradScaler", "amp.autocast", *DATA),
    ),
    Example(
        "seed004_grad_clipping",
        (
            "norm before clipping > 1: True",
            "norm step() used: 1.0000",
            "step size matches the unclipped gradient: True",
        ),
        needs=(*MODEL, "optim.SGD", "nn.utils.clip_grad_norm_"),
    ),
    Example(
        "seed004_grad_norm",
        ("Global gradient norm: <f>", "True"),
        parity="masked",
        needs=(*MODEL, "nn.utils.clip_grad_norm_"),
    ),
    Example(
        "seed004_model_check",
        (
            "SimpleMLP(",
            "  (fc1): Linear(in_features=20, out_features=32, bias=True)",
            "  (fc2): Linear(in_features=32, out_features=8, bias=True)",
            "  (fc3): Linear(in_features=8, out_features=1, bias=True)",
            "  (dropout): Dropout(p=0.2, inplace=False)",
            ")",
            "torch.Size([2, 1])",
        ),
        needs=MODEL,
    ),
    Example(
        "seed004_set_seed",
        ("True True True", "True False"),
        needs=("cuda.manual_seed_all", "backends.cudnn"),
    ),
    Example(
        "seed004_one_batch", ("torch.Size([16, 1]) torch.Size([16, 1])",), needs=(*MODEL, *DATA)
    ),
    Example(  # dyngrad only: the doctor (issue 5)
        "doctor_demo",
        (
            "dyngrad doctor: 4 findings",
            "KIND                WHERE                       MESSAGE / HINT",
            "aux.weight   (3, 16)     no grad",
            "aux.bias     (3,)        no grad",
        ),
        parity="",
    ),
    Example(  # dyngrad only: the model summary with saved activations (issue 15)
        "model_summary",
        (
            "SmallCNN                            [32, 10]    9,098            2.1 MiB",
            "    features.1 (ReLU)        [32, 8, 28, 28]       --          784.0 KiB",
            "    features.3 (Conv2d)     [32, 16, 14, 14]    1,168                 --",
            "Saved activations: 2.1 MiB (2.1 MiB saved by 15 graph nodes, parameters included)",
            "saved activations: 2207744 bytes, frozen features: 100352",
            "  classifier.1   [32, 10]   100352 bytes",
        ),
        parity="",
    ),
    Example(  # dyngrad only: a world of one here; the same losses on 2 ranks (docs/distributed.md)
        "ddp_train",
        (
            "ranks: 1, samples per rank and epoch: 600",
            "replicas equal: True",
            "accuracy above 0.9: True",
        ),
        parity="",
        requires=("mpi4py",),
    ),
]
BY_NAME = {e.name: e for e in CATALOGUE}


def normalize(text: str, mask_numbers: bool = False) -> str:
    """Hide what differs from run to run: addresses, ids and, for random data, decimals."""
    text = re.sub(r"0x[0-9a-fA-F]+", "0x…", text)
    text = re.sub(r"\b\d{9,}\b", "<id>", text)
    if mask_numbers:
        text = re.sub(r"-?\d+\.\d+(?:e[+-]?\d+)?", "<f>", text)
    return text


def to_torch(source: str, prelude: str = "") -> str:
    """The same script under real PyTorch: `dyngrad` becomes `torch` in the import lines."""
    source = re.sub(r"^(import|from) dyngrad\b", r"\1 torch", source, flags=re.M)
    head, _, rest = source.partition("\n")
    return head + "\n" + prelude + rest


def run_python(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """This interpreter in a fresh process, importing the dyngrad under test."""
    path = os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=dict(os.environ, PYTHONPATH=path),
        cwd=EXAMPLES.parent,
    )


@functools.cache
def run_dyngrad(name: str) -> subprocess.CompletedProcess:
    return run_python(str(EXAMPLES / f"{name}.py"))


# Importing torch takes seconds, so one process imports it and forks a child per script.
TORCH_RUNNER = """
import json, os, runpy, sys, traceback
import torch
jobs = json.loads(sys.argv[1])
for script, out in jobs:
    sys.stdout.flush(); sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(fd, 1)
        os.dup2(os.open(out + ".err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
        code = 0
        try:
            runpy.run_path(script, run_name="__main__")
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush(); sys.stderr.flush()
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    with open(out + ".rc", "w") as f:
        f.write(str(os.waitstatus_to_exitcode(status)))
"""


@pytest.fixture(scope="session")
def torch_outputs(tmp_path_factory) -> dict[str, tuple[int, str, str]]:
    """Each parity example run under real torch: name -> (exit code, stdout, stderr)."""
    pytest.importorskip("torch")
    if not hasattr(os, "fork"):
        pytest.skip("the torch runner needs os.fork")
    work = tmp_path_factory.mktemp("torch_examples")
    jobs = []
    for e in CATALOGUE:
        if e.parity:
            script = work / f"{e.name}.py"
            source = (EXAMPLES / f"{e.name}.py").read_text(encoding="utf-8")
            script.write_text(to_torch(source, e.torch_prelude), encoding="utf-8")
            jobs.append((str(script), str(work / f"{e.name}.out")))
    subprocess.run(
        [sys.executable, "-c", TORCH_RUNNER, json.dumps(jobs)],
        check=True,
        timeout=TIMEOUT * 2,
        cwd=work,
    )
    results = {}
    for script, out in jobs:
        rc = int(Path(out + ".rc").read_text())
        results[Path(script).stem] = (rc, Path(out).read_text(), Path(out + ".err").read_text())
    return results


def missing(needs) -> str:
    """Why a test can't pass yet: the names it needs that dyngrad lacks ("" when none)."""
    absent = [name for name in needs if not resolves(name)]
    return f"needs dyngrad.{', dyngrad.'.join(absent)} (in progress)" if absent else ""


def _params():
    for e in CATALOGUE:
        reason = missing(e.needs)
        marks = [pytest.mark.xfail(strict=False, reason=reason)] if reason else []
        absent = [m for m in e.requires if importlib.util.find_spec(m) is None]
        if absent:
            marks.append(pytest.mark.skip(reason=f"needs {', '.join(absent)}"))
        yield pytest.param(e, id=e.name, marks=marks)


def assert_lines_in_order(expected, text: str) -> None:
    lines = text.splitlines()
    position = 0
    for line in expected:
        try:
            position = lines.index(line, position) + 1
        except ValueError:
            raise AssertionError(f"missing (in order) {line!r} in:\n{text}") from None


@pytest.mark.parametrize("example", list(_params()))
def test_example_prints_expected_lines(example):
    result = run_dyngrad(example.name)
    assert result.returncode == 0, result.stderr
    assert_lines_in_order(example.expect, normalize(result.stdout, example.parity == "masked"))


@pytest.mark.parametrize("example", [p for p in _params() if p.values[0].parity])
def test_example_prints_what_torch_prints(example, torch_outputs):
    rc, torch_stdout, torch_stderr = torch_outputs[example.name]
    assert rc == 0, torch_stderr
    result = run_dyngrad(example.name)
    assert result.returncode == 0, result.stderr
    masked = example.parity == "masked"
    assert normalize(result.stdout, masked) == normalize(torch_stdout, masked)
    # Warnings go to stderr, whose texts differ; but dyngrad warns of nothing torch doesn't.
    categories = [
        set(re.findall(r"\b(\w+Warning): ", err)) for err in (result.stderr, torch_stderr)
    ]
    assert categories[0] <= categories[1], result.stderr


def test_grad_fn_is_the_same_node_after_backward():
    # The seed says y.grad_fn prints None after backward; the node is still there, unchanged.
    lines = run_dyngrad("seed000_graph_lifetime").stdout.splitlines()
    assert lines[0] == lines[1] and lines[0].startswith("<MulBackward0 object at 0x")


def test_every_example_is_in_the_catalogue():
    scripts = {p.stem for p in EXAMPLES.glob("*.py")}
    assert scripts - {"train_mlp"} == set(BY_NAME)


@pytest.mark.xfail(bool(missing(TRAIN_MLP_NEEDS)), strict=False, reason=missing(TRAIN_MLP_NEEDS))
def test_train_mlp_learns_the_spirals():
    result = run_dyngrad("train_mlp")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "spirals: 960 training points, 240 test points, 3 classes"
    assert sum(line.startswith("epoch ") for line in lines) == 15
    accuracy = float(re.fullmatch(r"test accuracy: (\d\.\d+)", lines[-1]).group(1))
    assert accuracy >= 0.9  # torch 2.13 reaches 1.000 on this data


def guide_snippets() -> list[tuple[str, str]]:
    """The (program, printed output) pairs of docs/graph.md: a python block, then a text one."""
    text = GRAPH_GUIDE.read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```\n\n```text\n(.*?)```", text, flags=re.S)


# The guide's snippets run one after another in one fresh process, each in its own namespace,
# named <stdin> as when pasted into `python -`.
SNIPPET_RUNNER = """
import contextlib, io, json, sys, traceback
results = []
for program in json.load(sys.stdin):
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(program, "<stdin>", "exec"), {"__name__": "__main__"})
        results.append([out.getvalue(), ""])
    except BaseException:
        results.append([out.getvalue(), traceback.format_exc()])
json.dump(results, sys.__stdout__)
"""


@pytest.fixture(scope="session")
def guide_outputs() -> list[tuple[str, str]]:
    """What each snippet of the guide printed, and the traceback if it failed."""
    programs = [program for program, _ in guide_snippets()]
    result = run_python("-c", SNIPPET_RUNNER, stdin=json.dumps(programs))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_graph_guide_has_snippets():
    assert len(guide_snippets()) >= 10


@pytest.mark.parametrize("number", range(len(guide_snippets())))
def test_graph_guide_snippet_prints_what_the_guide_says(number, guide_outputs):
    printed, error = guide_outputs[number]
    assert not error, error
    assert normalize(printed) == normalize(guide_snippets()[number][1])
