"""Errors that point at the cause: PyTorch's first sentence, then where and why, and the fix."""

from __future__ import annotations

import inspect

import pytest

import dyngrad as torch
from dyngrad.autograd import scope
from dyngrad.graph import passes

from .scoped import ScopedModule

NO_GRAD_FIRST = "element 0 of tensors does not require grad and does not have a grad_fn"
SECOND_FIRST = "Trying to backward through the graph a second time"


def line_of(marker: str) -> int:
    """The line of this file holding `marker` (a comment), so tests survive edits above."""
    lines = inspect.getsource(inspect.getmodule(line_of)).splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.rstrip().endswith(marker))


def backward_error(t) -> str:
    with pytest.raises(RuntimeError) as info:
        t.backward(torch.ones_like(t))
    return str(info.value)


# ---- "does not require grad": why -----------------------------------------------------------
def test_no_grad_site_is_named_for_binary_unary_and_general_ops():
    w = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        products = [w * 2, w.exp(), torch.matmul(w, w)]  # made-under-no-grad
    where = f"{__file__}:{line_of('# made-under-no-grad')}"
    for t in products:
        first, detail = backward_error(t).split("\n", 1)
        assert first == NO_GRAD_FIRST
        assert f"computed under torch.no_grad() (or set_grad_enabled(False)) at {where}" in detail


def test_result_of_a_marked_tensor_names_the_latest_no_grad_site():
    w = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        loss = (w * w).sum()  # the-loss-line
    detail = backward_error(loss).split("\n", 1)[1]
    # the sum's input needed no grad, so only the product carries the mark; the error names
    # the latest such op as the likely cut
    assert (
        f"The latest op run under torch.no_grad() on tensors that require grad was at "
        f"{__file__}:{line_of('# the-loss-line')}; if this tensor was computed from its "
        "result, that is where the graph was cut."
    ) in detail


def test_no_mark_when_grad_is_on_or_inputs_need_no_grad():
    w = torch.ones(3, requires_grad=True)
    plain = torch.ones(3)
    assert "_nograd_site" not in (w * 2).__dict__
    assert "_nograd_site" not in (plain * 2).__dict__
    with torch.no_grad():
        assert "_nograd_site" not in (plain * 2).exp().__dict__
        assert "_nograd_site" not in (w > 0).__dict__  # not differentiable with grad on either


def test_inference_mode_records_nothing():
    w = torch.ones(3, requires_grad=True)
    with torch.inference_mode():
        y = w * 2
    assert "_nograd_site" not in y.__dict__


def test_result_of_detached_inputs_lists_the_causes():
    w = torch.ones(3, requires_grad=True)
    loss = (w.detach() * 2).sum()
    first, detail = backward_error(loss).split("\n", 1)
    assert first == NO_GRAD_FIRST
    assert "none of the tensors it was computed from required grad" in detail
    assert ".detach()" in detail and "requires_grad_(False)" in detail


def test_frozen_parameter_is_named_as_such():
    class Parameter(torch.Tensor):  # nn.Parameter's class name is what the message reads
        pass

    p = Parameter()
    p._data = torch.ones(()).numpy()
    detail = backward_error(p).split("\n", 1)[1]
    assert "a parameter with requires_grad=False" in detail


def test_first_sentence_matches_torch(torch):
    import dyngrad

    w, tw = dyngrad.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    with dyngrad.no_grad():
        y = (w * 2).sum()
    with torch.no_grad():
        ty = (tw * 2).sum()
    with pytest.raises(RuntimeError) as theirs:
        ty.backward()
    assert backward_error(y).split("\n")[0] == str(theirs.value).split("\n")[0]


# ---- second backward -----------------------------------------------------------------------
def test_second_backward_names_the_node_and_the_pass():
    x = torch.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    first_pass = passes.current[0]
    message = backward_error(y)
    assert message.startswith(SECOND_FIRST)
    detail = message.split("\n", 1)[1]
    assert detail.startswith(
        f"[dyngrad] MulBackward0 released its saved tensors in backward "
        f"pass #{first_pass}; this is pass #{first_pass + 1}."
    )
    assert f"This graph was already used by backward pass #{first_pass}." in detail
    assert "retain_graph=True" in detail


def test_graph_carried_over_from_an_earlier_iteration_is_called_so():
    x = torch.ones(2, requires_grad=True)
    total = 0
    (x * x).sum().backward()  # warm-up: a backward that has nothing to do with `total`
    for step in range(2):
        loss = (x * x).sum()
        total = total + loss
        if step == 0:
            total.backward()
    message = backward_error(total)
    assert "a value from an earlier iteration was carried into this one" in message
    assert "total_loss += loss" in message and ".detach()" in message


def test_retain_graph_then_fresh_forward_raise_nothing():
    x = torch.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    (x * x).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_second_backward_first_sentence_matches_torch(torch):
    import dyngrad

    x, tx = dyngrad.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    y, ty = (x * x).sum(), (tx * tx).sum()
    y.backward()
    ty.backward()
    with pytest.raises(RuntimeError) as theirs:
        ty.backward()
    assert backward_error(y).split("\n")[0] == str(theirs.value).split("\n")[0]


# ---- in-place ------------------------------------------------------------------------------
def test_inplace_error_names_the_op_and_line():
    x = torch.ones(3, requires_grad=True)
    y = x.sigmoid()
    y.mul_(2)  # the-inplace-line
    detail = backward_error(y.sum()).split("\n", 1)[1]
    assert f"It was last modified by mul_ at {__file__}:{line_of('# the-inplace-line')}." in detail
    assert "clone()" in detail


# ---- errors inside module calls --------------------------------------------------------------
Module = ScopedModule


class Linear(Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self._parameters = {
            "weight": torch.randn(n_out, n_in, requires_grad=True),
            "bias": torch.zeros(n_out, requires_grad=True),
        }

    def forward(self, x):
        return x @ self._parameters["weight"].t() + self._parameters["bias"]


class Net(Module):
    def __init__(self, hidden=8):
        super().__init__(fc1=Linear(4, hidden), fc2=Linear(3, 2))

    def forward(self, x):
        return self._modules["fc2"](self._modules["fc1"](x).relu())


def test_shape_error_in_a_module_names_it_with_shapes():
    with pytest.raises(RuntimeError) as info:
        Net()(torch.randn(5, 4))
    first, detail = str(info.value).split("\n", 1)
    assert first == "mat1 and mat2 shapes cannot be multiplied (5x8 and 3x2)"
    assert detail == (
        "[dyngrad] raised inside model.fc2 (Linear), called with input shape "
        "(5, 8); its parameters: weight (2, 3), bias (2,)."
    )
    assert scope._stack == []  # every call popped, the failing ones too


def test_only_the_innermost_call_annotates():
    with pytest.raises(RuntimeError) as info:
        Net()(torch.randn(5, 4))
    assert str(info.value).count("[dyngrad] raised inside") == 1


def test_nested_containers_name_the_path():
    class Block(Module):
        def __init__(self):
            super().__init__(inner=Linear(4, 4))

        def forward(self, x):
            return self._modules["inner"](x)

    class Holder:  # a container the model never calls, as a ModuleList
        def __init__(self, **children):
            self._modules = children

    class Deep(Module):
        def __init__(self):
            super().__init__(layers=Holder(**{"0": Block()}))

        def forward(self, x):
            return self._modules["layers"]._modules["0"](x)

    with pytest.raises(RuntimeError, match=r"raised inside model\.layers\.0\.inner \(Linear\)"):
        Deep()(torch.randn(2, 3))


def test_errors_without_a_plain_message_are_left_alone():
    class Boom(Module):
        def forward(self, x):
            raise KeyError("weight")

    with pytest.raises(KeyError) as info:
        Boom()(torch.ones(1))
    assert info.value.args == ("weight",)


def test_module_scope_names_errors_and_outside_none():
    assert scope.current() is None
    with pytest.raises(RuntimeError, match=r"\n\[dyngrad\] raised inside encoder\.proj\.$"):
        with torch.viz.module_scope("encoder"), torch.viz.module_scope("proj"):
            assert scope.current() == "encoder.proj"
            torch.ones(2, 3).mm(torch.ones(2, 3))
    assert scope.current() is None


def test_errors_outside_modules_are_unchanged():
    with pytest.raises(RuntimeError) as info:
        torch.ones(2, 3).mm(torch.ones(2, 3))
    assert str(info.value) == "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"


# ---- with dyngrad.nn -------------------------------------------------------------------------
@pytest.fixture
def nn(monkeypatch):
    """dyngrad.nn whose Module.__call__ opens module scopes, as its hook is documented to."""
    nn = pytest.importorskip("dyngrad.nn")
    Module = nn.Module
    seen = []

    class Probe(Module):
        def forward(self):
            seen.append(scope.current())

    Probe()()
    if seen[0] is None:  # nn does not call the hook (yet): wrap __call__ exactly as documented
        plain_call = Module.__call__

        def call(self, *args, **kwargs):
            scope.enter(self)
            try:
                return plain_call(self, *args, **kwargs)
            except Exception as exc:
                scope.annotate(exc, args)
                raise
            finally:
                scope.exit()

        monkeypatch.setattr(Module, "__call__", call)
    return nn


def test_nn_shape_error_names_the_layer_inside_sequential(nn):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(3, 8))

        def forward(self, x):
            return self.body(x)

    with pytest.raises(RuntimeError) as info:
        Net()(torch.randn(5, 4))
    assert str(info.value) == (
        "mat1 and mat2 shapes cannot be multiplied (5x8 and 3x8)\n"
        "[dyngrad] raised inside model.body.2 (Linear), called with input shape (5, 8); its "
        "parameters: weight (8, 3), bias (8,)."
    )


def test_nn_saved_bytes_per_module(nn):
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    with torch.viz.record_modules():
        loss = net(torch.randn(5, 4)).sum()
    per_module = torch.autograd.graph.saved_bytes(loss, by="module")
    # layer 0 saves its input (5x4), ReLU its output (5x8, shared with layer 2's input),
    # layer 2 its weight (2x8) for the ReLU output's gradient
    assert per_module == {"model.0 (Linear)": 80, "model.1 (ReLU)": 160, "model.2 (Linear)": 64}
