"""Saved-tensor hooks: saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks, and
grad_fn._raw_saved_<name> (SavedTensor.register_hooks).

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

import dyngrad

from .conftest import first_line


def recording_hooks(lib, log):
    """A (pack, unpack) pair that logs what it sees and keeps tensors as they are."""

    def pack(x):
        log.append(("pack", x, lib.is_grad_enabled(), x._version))
        return x

    def unpack(x):
        log.append(("unpack", x, lib.is_grad_enabled()))
        return x

    return pack, unpack


# ---- saved_tensors_hooks ------------------------------------------------------------------


def test_pack_gets_each_saved_tensor_unpack_runs_at_backward(lib):
    log = []
    a = lib.randn(4, requires_grad=True)
    b = lib.randn(4)
    with lib.autograd.graph.saved_tensors_hooks(*recording_hooks(lib, log)):
        y = a * b  # only b is saved: a's gradient needs b
        assert [(kind, t is b) for kind, t, *_ in log] == [("pack", True)]
        y.sum().backward()
    assert [entry[0] for entry in log] == ["pack", "unpack"]
    assert log[0][2] is False  # pack runs under no_grad
    assert log[1][2] is False  # a backward without create_graph
    assert lib.equal(a.grad, b)


def test_pack_is_given_the_output_itself_for_ops_that_save_their_output(lib):
    log = []
    a = lib.randn(3, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(*recording_hooks(lib, log)):
        y = a.exp()
        z = a * a
    assert log[0][1] is y and log[1][1] is a and log[2][1] is a
    assert log[0][1].grad_fn is y.grad_fn and z.grad_fn.name() == "MulBackward0"


def test_unpack_runs_at_every_backward_with_retain_graph(lib):
    log = []
    a = lib.randn(3, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(*recording_hooks(lib, log)):
        y = a.sin()
    y.sum().backward(retain_graph=True)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert [entry[0] for entry in log] == ["pack", "unpack", "unpack", "unpack"]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        y.grad_fn._saved_self


def test_what_unpack_returns_is_what_backward_uses(lib):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda x: x * 2, lambda x: x):
        y = a * a  # a saved twice, each as 2a
    y.sum().backward()
    assert a.grad.tolist() == [4.0, 8.0, 12.0]
    a.grad = None
    with lib.autograd.graph.saved_tensors_hooks(lambda x: x * 2, lambda x: x / 2):
        y = a * a
    assert lib.equal(y.grad_fn._saved_self, a)
    y.sum().backward()
    assert a.grad.tolist() == [2.0, 4.0, 6.0]


def test_nested_hooks_the_innermost_applies(lib):
    a = lib.randn(5, requires_grad=True)
    b = lib.randn(5, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda x: 3 * x, lambda x: 3 * x):
        with lib.autograd.graph.saved_tensors_hooks(lambda x: 5 * x, lambda x: 5 * x):
            y = a * a
        z = b * b
    y.sum().backward()
    z.sum().backward()
    assert lib.allclose(a.grad, 2 * 5 * 5 * a)
    assert lib.allclose(b.grad, 2 * 3 * 3 * b)


def test_saved_values_read_by_hand_go_through_unpack(lib):
    log = []
    a = lib.randn(3, requires_grad=True)
    h = a * 2
    with lib.autograd.graph.saved_tensors_hooks(*recording_hooks(lib, log)):
        y = h.exp()
        z = h * h
        w = a * a
    out = y.grad_fn._saved_result
    assert log[-1][0] == "unpack" and log[-1][2] is True
    assert out is not y and lib.equal(out, y)
    assert out.grad_fn is y.grad_fn  # a saved output unpacks with its node as history
    assert z.grad_fn._saved_self.grad_fn is h.grad_fn  # an input keeps its own history
    leaf = w.grad_fn._saved_self
    assert leaf.is_leaf and leaf.requires_grad and leaf is not a
    assert [entry[0] for entry in log].count("unpack") == 3  # one per access, not per node


def test_unpack_must_return_a_tensor(lib):
    a = lib.randn(3, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: 1):
        y = a * a
    with pytest.raises(TypeError) as excinfo:
        y.sum().backward()
    assert first_line(excinfo) == (
        "Output of saved tensor unpack_hook expected to be a Tensor but got result of type int"
    )


def test_unpack_of_the_wrong_shape_fails_in_backward_as_torch(lib):
    a = lib.randn(5, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: lib.ones(3)):
        y = a * a
    with pytest.raises(RuntimeError, match="The size of tensor a \\(5\\) must match"):
        y.sum().backward()


def test_unpack_of_another_dtype_is_cast_back(lib):
    a = lib.randn(5, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda x: x.double(), lambda x: x):
        y = a * a
    y.sum().backward()
    assert a.grad.dtype == lib.float32
    assert lib.allclose(a.grad, 2 * a)


def test_pack_that_writes_into_its_input_raises(lib):
    a = lib.randn(5, requires_grad=True)

    def inc(x):
        x += 1
        return x

    with lib.autograd.graph.saved_tensors_hooks(inc, lambda x: x):
        with pytest.raises(RuntimeError) as excinfo:
            lib.exp(a)
    assert first_line(excinfo).startswith(
        "A saved tensor pack hook is modifying its input in place."
    )


def test_errors_raised_by_hooks_propagate(lib):
    class PackError(Exception):
        pass

    a = lib.tensor(1.0, requires_grad=True)

    def fail(x):
        raise PackError("hook")

    with lib.autograd.graph.saved_tensors_hooks(fail, lambda x: x):
        with pytest.raises(PackError, match="hook"):
            lib.sin(a)
    with lib.autograd.graph.saved_tensors_hooks(lambda x: x, fail):
        out = lib.sin(a)
    with pytest.raises(PackError, match="hook"):
        out.backward()


def test_python_numbers_are_never_packed(lib):
    def fail(x):
        raise RuntimeError("this hook should not be called")

    a = lib.randn(5, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(fail, fail):
        out = (a * 3).sum()
        (g,) = lib.autograd.grad(out, (a,))
    assert g.tolist() == [3.0] * 5


def test_packed_tensors_are_not_version_checked(lib):
    a = lib.randn(3, requires_grad=True)
    b = a.clone()
    with lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
        y = b * b
    with lib.no_grad():
        b.add_(1)
    y.sum().backward()  # no "modified by an inplace operation": the hooks own the value
    assert lib.allclose(a.grad, 2 * (a + 1))


def test_inplace_op_packs_after_its_write(lib):
    log = []
    a = lib.randn(3, requires_grad=True)
    b = a.clone()
    with lib.autograd.graph.saved_tensors_hooks(*recording_hooks(lib, log)):
        b.exp_()
    (_, packed, _, version) = log[0]
    assert packed is b and version == 1
    assert packed.grad_fn.name() == "ExpBackward0"
    b.sum().backward()
    assert lib.allclose(a.grad, a.exp())


def test_custom_function_saves_through_hooks(lib):
    log = []

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * x
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return 2 * g * x

    a = lib.randn(3, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(*recording_hooks(lib, log)):
        out = Square.apply(a)
    assert [entry[0] for entry in log] == ["pack", "pack"]
    assert log[0][1] is a and log[1][1] is out
    out.sum().backward()
    assert [entry[0] for entry in log] == ["pack", "pack", "unpack", "unpack"]
    assert lib.allclose(a.grad, 2 * a)


def test_double_backward_through_hooks(lib):
    with lib.autograd.graph.saved_tensors_hooks(lambda x: 2 * x, lambda x: x):
        a = lib.randn(5, requires_grad=True)
        y = a**3
        s = lib.sum(y)
    (g,) = lib.autograd.grad(s, (a,), create_graph=True)
    g.sum().backward()
    assert lib.allclose(a.grad, 6 * 2 * a)  # a saved once, as 2a


def test_hooks_are_per_thread(lib):
    calls = []
    a = lib.randn(3, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda x: calls.append(x) or x, lambda x: x):
        worker = threading.Thread(target=lambda: a.exp())
        worker.start()
        worker.join()
        a.exp()
    assert len(calls) == 1


def test_hooks_entered_in_unpack_do_not_outlive_the_backward(lib):
    def scope():
        def unpack(x):
            weak_ctx().__enter__()  # never exited: the backward must drop it
            return x

        ctx = lib.autograd.graph.saved_tensors_hooks(lambda x: x, unpack)
        weak_ctx = weakref.ref(ctx)
        x = lib.randn(3, 3, requires_grad=True)
        with ctx:
            x.sin().sum().backward()
        return weakref.ref(unpack)

    ref = scope()
    gc.collect()
    assert ref() is None


def test_without_hooks_nodes_keep_the_tensors_themselves():
    a = dyngrad.randn(3, requires_grad=True)
    y = a * a
    assert y.grad_fn._saved["x"] is a
    assert dyngrad.graph.saved_hooks.active == []


# ---- save_on_cpu, disable_saved_tensors_hooks -----------------------------------------------


@pytest.mark.parametrize("pin_memory", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_save_on_cpu_keeps_values_and_gradients(lib, pin_memory, dtype):
    a = lib.randn(5, dtype=getattr(lib, dtype), requires_grad=True)
    with lib.autograd.graph.save_on_cpu(pin_memory):
        y = a * a
        assert lib.equal(y.grad_fn._saved_self, a)
        assert y.grad_fn._saved_other.dtype == a.dtype
    y.sum().backward()
    assert lib.allclose(a.grad, 2 * a)


def test_disable_saved_tensors_hooks(lib):
    graph = lib.autograd.graph
    with graph.disable_saved_tensors_hooks("error message"):
        with pytest.raises(RuntimeError, match="^error message$"):
            with graph.saved_tensors_hooks(lambda x: x, lambda x: x):
                pass
    with graph.saved_tensors_hooks(lambda x: x, lambda x: x):  # enabled again
        with pytest.raises(RuntimeError, match="^error message$"):
            with graph.disable_saved_tensors_hooks("error message"):
                pass
    with graph.disable_saved_tensors_hooks("outer"):
        with graph.disable_saved_tensors_hooks("inner"):
            with pytest.raises(RuntimeError, match="^inner$"):
                with graph.saved_tensors_hooks(lambda x: x, lambda x: x):
                    pass
        with pytest.raises(RuntimeError, match="^outer$"):
            with graph.saved_tensors_hooks(lambda x: x, lambda x: x):
                pass


def test_hooks_must_be_callable(lib):
    with pytest.raises(TypeError) as excinfo:
        with lib.autograd.graph.saved_tensors_hooks(1, 2):
            pass
    assert first_line(excinfo) == (
        "_push_saved_tensors_default_hooks(): incompatible function arguments. The following "
        "argument types are supported:"
    )


# ---- SavedTensor: grad_fn._raw_saved_<name> -------------------------------------------------


def test_register_hooks_on_one_saved_tensor(lib):
    a = lib.randn(5, requires_grad=True)
    y = a * a
    y.grad_fn._raw_saved_self.register_hooks(lambda x: 2 * x, lambda x: x)
    assert lib.allclose(y.grad_fn._saved_self, 2 * a)
    assert lib.equal(y.grad_fn._saved_other, a)
    y.sum().backward()
    assert lib.allclose(a.grad, 3 * a)


def test_raw_saved_tensor_data_and_unpack_hook(lib):
    def unpack_hook(t):
        return t

    a = lib.tensor(2.0, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, unpack_hook):
        b = a**2
    c = b.exp()
    d = c**2
    assert b.grad_fn._raw_saved_self.data is a
    assert b.grad_fn._raw_saved_self.unpack_hook is unpack_hook
    assert c.grad_fn._raw_saved_result.data is not c  # an output is kept without history
    assert c.grad_fn._raw_saved_result.unpack_hook is None
    assert d.grad_fn._raw_saved_self.data is c
    raw = c.grad_fn._raw_saved_result
    assert isinstance(raw, lib.autograd.SavedTensor)
    assert raw is c.grad_fn._raw_saved_result


def test_register_hooks_errors(lib):
    def saved_self():
        a = lib.randn(5, requires_grad=True)
        return a * a, a

    y, _ = saved_self()
    with pytest.raises(TypeError, match="incompatible function arguments"):
        y.grad_fn._raw_saved_self.register_hooks(lambda x: x)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        y.grad_fn._raw_saved_self.register_hooks(1, 1)
    y, _ = saved_self()
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        y.grad_fn._raw_saved_self.register_hooks(lambda x, b: x, lambda x: x)

    def double_in_place(x):
        x *= 2
        return x

    y, _ = saved_self()
    with pytest.raises(RuntimeError) as excinfo:
        y.grad_fn._raw_saved_self.register_hooks(double_in_place, lambda x: x / 2)
    assert first_line(excinfo).startswith("A saved tensor pack hook is modifying its input")
    y, a = saved_self()
    raw = y.grad_fn._raw_saved_self
    raw.register_hooks(lambda x: x, lambda x: x)
    with pytest.raises(RuntimeError) as excinfo:
        raw.register_hooks(lambda x: x, lambda x: x)
    assert first_line(excinfo) == (
        "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: "
        "only one pair of hooks is allowed at a time."
    )
    y.sum().backward()
    assert lib.allclose(a.grad, 2 * a)
    with pytest.raises(RuntimeError, match="^Calling register_hooks on a saved tensor after"):
        y.grad_fn._raw_saved_other.register_hooks(lambda x: x, lambda x: x)


def test_raw_saved_tensors_of_a_custom_function(lib):
    class Keep(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, None)
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g

    a = lib.randn(5, requires_grad=True)
    y = Keep.apply(a)
    saved = y.grad_fn._raw_saved_tensors
    assert all(isinstance(s, lib.autograd.SavedTensor) for s in saved)
    with pytest.raises(RuntimeError, match="None is forbidden"):
        saved[1].register_hooks(lambda x: x, lambda x: x)
    saved[0].register_hooks(lambda x: x * 3, lambda x: x)
    assert lib.allclose(y.grad_fn.saved_tensors[0], 3 * a)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        y.grad_fn._raw_saved_tensors


def test_saved_tensor_cannot_be_made_from_python(lib):
    with pytest.raises(RuntimeError) as excinfo:
        lib.autograd.SavedTensor()
    assert first_line(excinfo) == "Trying to create a SavedTensor object from Python is forbidden."


# ---- the glass box --------------------------------------------------------------------------


def test_saved_bytes_count_what_the_hooks_keep():
    a = dyngrad.randn(100, requires_grad=True)
    plain = a * a
    assert dyngrad.autograd.graph.saved_bytes(plain) == 400
    with dyngrad.autograd.graph.save_on_cpu(pin_memory=True):  # keeps a copy per save
        copied = a * a
    assert dyngrad.autograd.graph.saved_bytes(copied) == 800
    with dyngrad.autograd.graph.saved_tensors_hooks(lambda x: "on disk", lambda x: a):
        nothing = a * a
    assert dyngrad.autograd.graph.saved_bytes(nothing) == 0
    text = dyngrad.autograd.graph.describe(nothing, detail=True)
    assert "self (100,) (packed by saved_tensors_hooks, keeps no tensor alive)" in text
    assert "saved tensors: 0 B in 0 buffers" in text
