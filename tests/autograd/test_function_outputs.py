"""Custom Functions: what their outputs are and which gradients come back to backward
(non-tensor and non-differentiable outputs, mark_dirty), setup_context's inputs, saved
tensors cleared on access, the deprecated names.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import gc
import re
import warnings
import weakref

import pytest

from .conftest import first_line


def test_non_tensor_outputs_get_none_as_their_gradient(lib):
    seen = []

    class Mixed(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t, scale):
            return scale, t * scale, None, True, "bar", t.long()

        @staticmethod
        def backward(ctx, *grads):
            seen.append([None if g is None else (g.dtype, g.tolist()) for g in grads])
            return grads[1] * 3, None

    t = lib.ones(2, requires_grad=True)
    out = Mixed.apply(t, 3)
    assert (out[0], out[2], out[3], out[4]) == (3, None, True, "bar")
    out[1].sum().backward()
    assert seen == [[None, (lib.float32, [1.0, 1.0]), None, None, None, (lib.int64, [0, 0])]]
    assert t.grad.tolist() == [3.0, 3.0]


def test_non_differentiable_grads_stay_none_when_asked(lib):
    seen = []

    class Func(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out0, out1 = x.clone(), x.clone()
            ctx.mark_non_differentiable(out1)
            ctx._materialize_non_diff_grads = False
            return out0, out1

        @staticmethod
        def backward(ctx, g0, g1):
            seen.append(g1)
            return g0

    Func.apply(lib.tensor(1.0, requires_grad=True))[0].backward()
    assert seen == [None]


def test_setup_context_gets_forward_defaults(lib):
    class Pow(lib.autograd.Function):
        @staticmethod
        def forward(x, y=3):
            return x**y

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y = inputs
            ctx.save_for_backward(x)
            ctx.y = y

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * ctx.y * x ** (ctx.y - 1), None

    x = lib.tensor(2.0, requires_grad=True)
    out = Pow.apply(x)
    assert out.item() == 8.0 and lib.autograd.grad(out, x)[0].item() == 12.0


def test_saved_variables_is_deprecated(lib):
    class Add(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a + b

        @staticmethod
        def backward(ctx, g):
            ctx.saved_variables
            return g, g

    x = lib.ones(2, requires_grad=True)
    with pytest.warns(
        DeprecationWarning, match="'saved_variables' is deprecated; use 'saved_tensors'"
    ):
        Add.apply(x, x).sum().backward()


def _clearing(lib, accesses):
    class Fn(lib.autograd.Function):
        clear_saved_tensors_on_access = True

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            for _ in range(accesses):
                (x,) = ctx.saved_tensors
            ref = weakref.ref(x)
            del x
            assert ref() is None  # the caller held the last reference
            return g

    return Fn


def test_clear_saved_tensors_on_access_lets_them_go(lib):
    _clearing(lib, 1).apply(lib.randn(3, requires_grad=True).clone()).sum().backward()


def test_clear_saved_tensors_on_access_refuses_a_second_access(lib):
    out = _clearing(lib, 2).apply(lib.randn(3, requires_grad=True))
    with pytest.raises(RuntimeError) as excinfo:
        out.sum().backward()
    assert first_line(excinfo) == (
        "saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is "
        "set on the autograd.Function. Either access saved_tensors only once, or set "
        "clear_saved_tensors_on_access=False."
    )


def test_inplace_function_is_kept_for_old_code(lib):
    class Double(lib.autograd.function.InplaceFunction):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.mul_(2)

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    x = lib.ones(2, requires_grad=True)
    y = x.clone()
    assert Double.apply(y) is y and y.grad_fn.name() == "DoubleBackward"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def _adding(lib, returns):
    class Adder(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return returns(a, b)

        @staticmethod
        def backward(ctx, *grads):
            return grads[0], grads[0]

    return Adder


def test_mark_dirty_on_a_view_input_allows_one_output_only(lib):
    a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError) as excinfo:
        _adding(lib, lambda a, b: (a, a + b)).apply(a.clone().view_as(a), b)
    assert first_line(excinfo).startswith(
        "If your Function modifies inplace an input that is a view of another Tensor, your "
        "Function cannot return more than one Tensor."
    )
    c = _adding(lib, lambda a, b: a).apply(a.clone().view_as(a), b)
    c.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]


def test_a_dirty_input_must_be_returned(lib):
    a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError) as excinfo:
        _adding(lib, lambda a, b: (a.clone(), a + b)).apply(a.clone(), b)
    assert first_line(excinfo) == (
        "Some elements marked as dirty during the forward method were not returned as output. "
        "The inputs that are modified inplace must all be outputs of the Function."
    )


NOT_AN_INPUT = (
    "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have "
    "been mutated should be passed to ctx.mark_dirty()."
)


def test_mark_dirty_on_a_tensor_not_an_input_warns_or_raises_for_a_view(lib):
    def function(make):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = make(x)
                ctx.mark_dirty(out)
                return out

            @staticmethod
            def backward(ctx, g):
                return g

        return Bad

    a = lib.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match=re.escape(NOT_AN_INPUT)):
        function(lambda x: 3 * x).apply(a.clone())
    with pytest.raises(RuntimeError, match=re.escape(NOT_AN_INPUT)):
        function(lambda x: x.clone().view_as(x)).apply(a.clone())


def test_a_function_that_dirties_and_saves_a_view_leaves_no_cycle(lib):
    class Test(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    def scope():
        x = lib.tensor(1.0, requires_grad=True).clone()
        x = x.view_as(x)
        Test.apply(x)
        return weakref.ref(x)

    gc.disable()
    try:
        assert scope()() is None  # freed by reference counting alone
    finally:
        gc.enable()


def test_an_input_returned_under_no_grad_comes_back_detached(lib):
    class Same(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    s = lib.ones(2, requires_grad=True)
    with lib.no_grad():
        out = Same.apply(s)
    assert (out.requires_grad, out._is_view(), out is s) == (False, False, False)
    plain = lib.ones(2)
    view = Same.apply(plain)
    assert (view.requires_grad, view._is_view()) == (False, True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        view.zero_()
    assert plain.tolist() == [0.0, 0.0]
