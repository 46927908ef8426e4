"""The generated fast forms record what `apply` records: See Note [Generated fast forms]."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import dyngrad as torch
from dyngrad._tensor import InferenceCounter
from dyngrad.graph.node import Node
from dyngrad.graph.saved import SavedOutput
from dyngrad.ops.table import fast, fast_codegen, fast_compiled
from dyngrad.ops.table.fast_codegen import FORMS
from dyngrad.ops.table.record import apply
from dyngrad.ops.table.registry import OPS

NAMES = sorted(FORMS)
# which inputs require grad: every mask a form specializes
MASKS = {"unary": (0, 1), "binary": (0, 1, 2, 3)}


def _inputs(kind: str, mask: int, history: str) -> tuple:
    """Fresh inputs for one call; `history`: leaves, results of an op, or views."""
    rng = np.random.default_rng(0)
    tensors = []
    for i in range(1 if kind == "unary" else 2):
        requires_grad = bool(mask >> i & 1)
        data = rng.uniform(0.2, 0.8, (3, 3)).astype(np.float32)
        t = torch.tensor(data, requires_grad=requires_grad and history == "leaf")
        if requires_grad and history != "leaf":
            t = torch.tensor(data, requires_grad=True) * 1.0
        if history == "view":
            t = t[:]  # a view of the same shape: mm takes it too
        tensors.append(t)
    return tuple(tensors)


def _both(form, op, args):
    """Call the fast form and `apply` on the same line, so anomaly traces can match."""
    results = []
    for call, call_args in ((form, args), (apply, (op, args))):
        results.append(call(*call_args))
    return results


def _same_value(a, b) -> bool:
    if type(a) is SavedOutput:
        return (
            type(b) is SavedOutput
            and a.output_nr == b.output_nr
            and np.array_equal(a.data, b.data, equal_nan=True)
            and a._tensor is b._tensor is None
        )
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b, equal_nan=True)
    return type(a) is type(b) and (a is b or a == b)


def _assert_same_output(fast_out, apply_out) -> None:
    assert type(fast_out) is type(apply_out)
    assert np.array_equal(fast_out._data, apply_out._data, equal_nan=True)
    assert fast_out._data.dtype == apply_out._data.dtype
    for field in ("_requires_grad", "_out_nr", "_grad", "_base"):
        assert getattr(fast_out, field) == getattr(apply_out, field), field
    assert type(fast_out._version_counter) is type(apply_out._version_counter)
    if type(fast_out._version_counter) is not InferenceCounter:  # which has no version
        assert fast_out._version_counter.value == apply_out._version_counter.value


def _assert_same_node(fast_node, apply_node) -> None:
    assert (fast_node is None) == (apply_node is None)
    if fast_node is None:
        return
    assert fast_node.name() == apply_node.name()
    assert fast_node.next_functions == apply_node.next_functions
    assert fast_node._seq != apply_node._seq
    fields, expected = vars(fast_node), vars(apply_node)
    assert fields.keys() == expected.keys()
    for key, value in fields.items():
        if key in ("_saved", "_versions"):
            assert value.keys() == expected[key].keys(), key
            for name, saved in value.items():
                assert _same_value(saved, expected[key][name]), (key, name)
        else:
            assert value == expected[key], key


@pytest.mark.parametrize("history", ["leaf", "result", "view"])
@pytest.mark.parametrize("name", NAMES)
def test_fast_form_records_what_apply_records(name, history):
    form, op, kind = FORMS[name]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for mask in MASKS[kind]:
            args = _inputs(kind, mask, history)
            fast_out, apply_out = _both(form, op, args)
            _assert_same_output(fast_out, apply_out)
            _assert_same_node(fast_out._grad_fn, apply_out._grad_fn)


@pytest.mark.parametrize("name", ["mul", "div", "add", "mm", "exp", "sin", "sum"])
def test_fast_form_records_what_apply_records_in_anomaly_mode(name):
    form, op, kind = FORMS[name]
    with torch.autograd.detect_anomaly(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args = _inputs(kind, 1, "result")
        fast_out, apply_out = _both(form, op, args)
    assert fast_out.grad_fn._trace
    _assert_same_node(fast_out.grad_fn, apply_out.grad_fn)


@pytest.mark.parametrize("name", ["mul", "div", "exp", "sin"])
def test_fast_form_packs_what_apply_packs(name):
    form, op, kind = FORMS[name]
    packed = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        args = _inputs(kind, 1, "leaf")
        fast_out, apply_out = _both(form, op, args)
    assert len(packed) == 2 * len(op.plans[1])
    half = len(packed) // 2
    assert all(np.array_equal(a._data, b._data) for a, b in zip(packed[:half], packed[half:]))
    _assert_same_node(fast_out.grad_fn, apply_out.grad_fn)


@pytest.mark.parametrize("name", ["mul", "exp"])
def test_fast_form_without_grad_notes_where_history_was_lost(name):
    form, op, kind = FORMS[name]
    with torch.no_grad():
        args = _inputs(kind, 1, "leaf")
        fast_out, apply_out = _both(form, op, args)
    _assert_same_output(fast_out, apply_out)
    assert fast_out._nograd_site == apply_out._nograd_site


def test_fast_form_in_inference_mode_makes_inference_tensors():
    form, op, _ = FORMS["mul"]
    with torch.inference_mode():
        fast_out, apply_out = _both(form, op, _inputs("binary", 0, "leaf"))
    assert type(fast_out._version_counter) is InferenceCounter
    _assert_same_output(fast_out, apply_out)


def test_fast_form_source_is_readable_and_named_for_its_op():
    source = fast.source_of("mul")
    assert source.startswith("def mul(x, y):")
    assert "t = _new(Tensor)" in source  # new_tensor inlined
    assert 'node._saved = {"y": y, "x": x}' in source  # mul's plan when both require grad
    form = FORMS["mul"][0]
    assert form.__name__ == form.__code__.co_name == "mul"
    assert form.__code__.co_filename.endswith("<fast form of torch.mul>")
    assert form is torch.Tensor.__mul__


def test_fast_form_error_traceback_shows_its_source():
    x = torch.ones(2, 3)
    with pytest.raises(RuntimeError) as info:
        x * torch.ones(4)
    frames = [entry for entry in info.traceback if "fast form of torch.mul" in str(entry.path)]
    assert frames and "translate" in str(frames[0].statement)


def test_fast_form_calls_new_tensor_when_its_body_cannot_be_inlined(monkeypatch):
    form, op, kind = FORMS["mul"]
    monkeypatch.setattr(fast_codegen, "_inlined", lambda: (None, {}))
    monkeypatch.setattr(fast_codegen, "_CODES", {})
    fallback, source = fast_codegen._function(op, kind)
    assert "t = new_tensor(out, True, node)" in source and "_new(Tensor)" not in source
    fast_out, apply_out = _both(fallback, op, _inputs(kind, 3, "result"))
    _assert_same_output(fast_out, apply_out)
    _assert_same_node(fast_out.grad_fn, apply_out.grad_fn)


def test_attribute_stores_on_tensors_and_nodes_stay_on_the_fast_path():
    # See Note [No __delattr__]: either method makes every store a call through `object`'s
    classes = torch.Tensor.__mro__[:-1] + Node.__mro__[:-1] + (SavedOutput,)
    for cls in classes:
        assert "__setattr__" not in vars(cls) and "__delattr__" not in vars(cls), cls


def test_written_out_fast_forms_are_up_to_date():
    # every form's code comes from fast_compiled.py, which Python's bytecode cache keeps (a
    # form written from the template that the file lacks is compiled as dyngrad loads)
    stale = [s.splitlines()[0] for s, code in fast_codegen._CODES.values()
             if fast_compiled.CODES.get(s) is not code]  # fmt: skip
    assert not stale, (
        "src/dyngrad/ops/table/fast_compiled.py is out of date: write it again with "
        "`python -m dyngrad.ops.table.fast_codegen > src/dyngrad/ops/table/fast_compiled.py`"
    )
    assert fast_codegen.cached_module() == Path(fast_compiled.__file__).read_text()


def test_a_form_missing_from_the_written_out_file_is_compiled(monkeypatch):
    monkeypatch.setattr(fast_compiled, "CODES", {})
    monkeypatch.setattr(fast_codegen, "_CODES", {})
    function, source = fast_codegen._function(OPS["mul"], "binary")
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    out = function(a, a)
    assert out.tolist() == [1.0, 4.0] and type(out.grad_fn).__name__ == "MulBackward0"
    assert function.__code__.co_name == "mul" and source.startswith("def mul(x, y):")
