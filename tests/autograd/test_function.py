"""Custom functions: autograd.Function, its ctx, errors, and the articles' two examples.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import re
import warnings

import pytest

import dyngrad

from .conftest import first_line


def article_functions(torch):
    """Seed 004 §3.2 and §4.3, unchanged (written against `torch`)."""

    class CustomScale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, alpha):
            ctx.save_for_backward(x, alpha)
            return x * alpha

        @staticmethod
        def backward(ctx, grad_output):
            x, alpha = ctx.saved_tensors
            grad_x = grad_output * alpha
            grad_alpha = (grad_output * x).sum()
            return grad_x, grad_alpha

    class StableSoftmax(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            max_val = x.max(dim=-1, keepdim=True).values
            exp_x = torch.exp(x - max_val)
            out = exp_x / exp_x.sum(dim=-1, keepdim=True)
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, grad_output):
            (out,) = ctx.saved_tensors
            s = (grad_output * out).sum(dim=-1, keepdim=True)
            grad_input = out * (grad_output - s)
            return grad_input

    return CustomScale, StableSoftmax


def test_custom_scale(lib):
    CustomScale, _ = article_functions(lib)
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    alpha = lib.tensor(2.0, requires_grad=True)
    y = CustomScale.apply(x, alpha)
    assert y.tolist() == [2.0, 4.0, 6.0]
    assert y.grad_fn.name() == "CustomScaleBackward"
    assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == ["AccumulateGrad"] * 2
    y.sum().backward()
    assert (x.grad.tolist(), alpha.grad.item()) == ([2.0, 2.0, 2.0], 6.0)


def test_stable_softmax_matches_softmax_gradients(lib):
    _, StableSoftmax = article_functions(lib)
    x = lib.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 1000.0]], dtype=lib.float64, requires_grad=True)
    y = StableSoftmax.apply(x)
    assert y[1].tolist() == [0.0, 0.0, 1.0]  # no overflow at 1000
    w = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64)
    (y * w).sum().backward()
    assert x.grad[0].tolist() == pytest.approx([-0.14181709, -0.14077036, 0.28258745], abs=1e-8)
    assert x.grad[1].tolist() == [0.0, 0.0, 0.0]
    assert lib.autograd.gradcheck(
        StableSoftmax.apply,
        (lib.tensor([[0.1, 0.5, -0.3], [1.0, 2.0, 0.0]], dtype=lib.float64, requires_grad=True),),
    )


def test_saved_tensors_are_freed_after_backward(lib):
    CustomScale, _ = article_functions(lib)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = CustomScale.apply(x, lib.tensor(2.0, requires_grad=True))
    y.sum().backward()
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert first_line(info).startswith("Trying to backward through the graph a second time")


def test_needs_input_grad(lib):
    seen = []

    class Probe(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, k):
            seen.append(ctx.needs_input_grad)
            return x * y * k

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    Probe.apply(lib.ones(2, requires_grad=True), lib.ones(2), 3)
    with lib.no_grad():  # still what requires_grad says
        Probe.apply(lib.ones(2, requires_grad=True), lib.ones(2), 3)
    assert seen == [(True, False, False), (True, False, False)]


def test_forward_runs_without_recording(lib):
    class Inner(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            inner = x * 2
            ctx.recorded = (inner.requires_grad, lib.is_grad_enabled())
            return inner

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = Inner.apply(lib.ones(2, requires_grad=True))
    assert y.grad_fn.recorded == (False, False)


def test_non_tensor_arguments_get_no_gradient(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    x = lib.ones(2, requires_grad=True)
    Scale.apply(x, 7.0).sum().backward()
    assert x.grad.tolist() == [7.0, 7.0]


def test_no_input_requiring_grad_means_no_node(lib):
    CustomScale, _ = article_functions(lib)
    y = CustomScale.apply(lib.ones(2), lib.tensor(2.0))
    assert (y.requires_grad, y.grad_fn) == (False, None)


@pytest.mark.parametrize(
    "returned,message",
    [
        (
            lambda g: g,
            "function BadBackward returned an incorrect number of gradients (expected 2, got 1)",
        ),
        (
            lambda g: (g, g, g),
            "function BadBackward returned an incorrect number of gradients (expected 2, got 3)",
        ),
    ],
)
def test_wrong_number_of_gradients(lib, returned, message):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * 2 + y

        @staticmethod
        def backward(ctx, g):
            return returned(g)

    with pytest.raises(RuntimeError) as info:
        Bad.apply(lib.ones(2, requires_grad=True), lib.ones(2)).sum().backward()
    assert str(info.value) == message


def test_extra_none_gradients_are_allowed(lib):
    class Extra(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None

    x = lib.ones(2, requires_grad=True)
    Extra.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


@pytest.mark.parametrize(
    "grad,message",
    [
        (
            lambda lib: lib.ones(3),
            "Function BadShapeBackward returned an invalid gradient at index 0 - got [3] but expected "
            "shape compatible with [2]",
        ),
        (lambda lib: 3, "expected Variable or None (got int)"),
    ],
)
def test_wrong_gradient_shape_or_type(lib, grad, message):
    class BadShape(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return grad(lib)

    with pytest.raises(RuntimeError) as info:
        BadShape.apply(lib.ones(2, requires_grad=True)).sum().backward()
    assert str(info.value) == message


def test_broadcastable_gradients_are_summed_to_the_input_shape(lib):
    class Wide(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return lib.ones(3, 2)

    x = lib.ones(2, requires_grad=True)
    Wide.apply(x).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_mark_dirty(lib):
    class Increment(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    a = lib.ones(2, requires_grad=True)
    b = a * 1
    c = Increment.apply(b)
    assert c is b and b._version == 2 and b.grad_fn.name() == "IncrementBackward"  # add_, dirty
    c.sum().backward()
    assert (b.tolist(), a.grad.tolist()) == ([2.0, 2.0], [2.0, 2.0])
    with pytest.raises(RuntimeError) as info:
        Increment.apply(lib.ones(2, requires_grad=True))
    assert (
        str(info.value)
        == "a leaf Variable that requires grad has been used in an in-place operation."
    )


def test_an_input_returned_as_is_becomes_a_new_tensor(lib):
    class Identity(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 3

    a = lib.ones(2, requires_grad=True)
    out = Identity.apply(a)
    assert out is not a and out.grad_fn.name() == "IdentityBackward"
    out.sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]


def test_mark_non_differentiable(lib):
    received = []

    class SortLike(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            order = lib.tensor([1, 0])
            ctx.mark_non_differentiable(order)
            return x * 1, order

        @staticmethod
        def backward(ctx, g_values, g_order):
            received.append(g_order.tolist())
            return g_values

    values, order = SortLike.apply(lib.ones(2, requires_grad=True))
    assert (order.requires_grad, order.grad_fn, values.requires_grad) == (False, None, True)
    values.sum().backward()
    assert received == [[0, 0]]


def test_unused_outputs_get_zero_gradients(lib):
    received = []

    class TwoOut(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            received.append(g2.tolist())
            return g1 * 2 + g2 * 3

    x = lib.ones(2, requires_grad=True)
    first, _ = TwoOut.apply(x)
    first.sum().backward()
    assert (received, x.grad.tolist()) == ([[0.0, 0.0]], [2.0, 2.0])


def test_set_materialize_grads_false_passes_none(lib):
    received = []

    class TwoOut(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            received.append(g2)
            return g1 * 2

    x = lib.ones(2, requires_grad=True)
    TwoOut.apply(x)[0].sum().backward()
    assert received == [None] and x.grad.tolist() == [2.0, 2.0]


def test_integer_outputs_do_not_require_grad(lib):
    class Positive(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return (x > 0).long()

        @staticmethod
        def backward(ctx, g):
            return g

    out = Positive.apply(lib.ones(2, requires_grad=True))
    assert (out.requires_grad, out.grad_fn) == (False, None)


def test_non_tensor_outputs_pass_through(lib):
    class WithCount(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 5

        @staticmethod
        def backward(ctx, g, _):
            return g

    out, count = WithCount.apply(lib.ones(2, requires_grad=True))
    assert count == 5 and out.grad_fn.name() == "WithCountBackward"


def test_once_differentiable(lib):
    from importlib import import_module

    once_differentiable = import_module(lib.__name__ + ".autograd.function").once_differentiable
    seen = []

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            seen.append((g.requires_grad, lib.is_grad_enabled()))
            return 2 * x * g

    x = lib.tensor([3.0], requires_grad=True)
    (g,) = lib.autograd.grad(Square.apply(x), x, create_graph=True)
    assert (g.tolist(), g.requires_grad, seen) == ([6.0], False, [(False, False)])


def test_once_differentiable_refuses_a_second_differentiation(lib):
    from importlib import import_module

    once_differentiable = import_module(lib.__name__ + ".autograd.function").once_differentiable

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = lib.tensor([3.0], requires_grad=True)
    v = lib.ones(1, requires_grad=True)
    (g,) = lib.autograd.grad(Square.apply(x), x, v, create_graph=True)
    assert g.tolist() == [6.0] and g.grad_fn.name() == "torch::autograd::Error"
    assert repr(g) == "tensor([6.], grad_fn=<Error>)"
    with pytest.raises(RuntimeError) as info:
        g.backward()
    assert str(info.value) == (
        "trying to differentiate twice a function that was marked with @once_differentiable"
    )


def _graph_desc(fn) -> str:
    if fn is None:
        return "None"
    return f"{type(fn).__name__}({', '.join(_graph_desc(n) for n, _ in fn.next_functions)})"


def test_once_differentiable_error_node_edges_go_to_fresh_leaves(lib):
    # As PyTorch's DelayedError: one Error node for all results, an edge per result to a new
    # leaf on it (None for a None result), nothing back into the graph that made them, so the
    # grad_output's own history (ExpandBackward0 from sum, here) is not reached from it.
    from importlib import import_module

    once_differentiable = import_module(lib.__name__ + ".autograd.function").once_differentiable

    class Affine(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, k, b):
            ctx.k = k
            ctx.save_for_backward(a, b)
            return a + k * b + a * b

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g + g * b, None, g * ctx.k + g * a

    a = lib.tensor([[1.0, 2.0]], requires_grad=True)
    b = lib.tensor([[3.0, 4.0]], requires_grad=True)
    go = lib.ones((), requires_grad=True)
    ga, gb = lib.autograd.grad(Affine.apply(a, 2, b).sum(), (a, b), go, create_graph=True)
    assert (ga.tolist(), gb.tolist()) == ([[4.0, 5.0]], [[3.0, 4.0]])
    assert ga.grad_fn is gb.grad_fn and (ga.output_nr, gb.output_nr) == (0, 2)
    assert _graph_desc(ga.grad_fn) == "Error(AccumulateGrad(), None, AccumulateGrad())"
    (leaf_a, nr_a), none_edge, (leaf_b, nr_b) = ga.grad_fn.next_functions
    assert none_edge == (None, 0) and (nr_a, nr_b) == (0, 0)
    assert leaf_a.variable.is_leaf and leaf_a.variable.requires_grad
    assert (leaf_a.variable.tolist(), leaf_b.variable.tolist()) == (ga.tolist(), gb.tolist())
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        lib.autograd.grad(ga.sum(), go)  # the Error node reaches nothing of go
    assert lib.autograd.grad(ga.sum(), go, allow_unused=True) == (None,)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        lib.autograd.grad(ga.sum(), a)  # nor anything of a
    with pytest.raises(RuntimeError, match="differentiate twice a function that was marked"):
        (ga.sum() + gb.sum()).backward()  # a backward that runs the Error node raises


def test_once_differentiable_accumulated_grad_graph(lib):
    # .grad under create_graph copies the result (CopyBackwards) onto the Error node
    from importlib import import_module

    once_differentiable = import_module(lib.__name__ + ".autograd.function").once_differentiable

    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            return g * 2

    a = lib.ones(2, 2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # backward(create_graph=True) warns of a ref cycle
        Double.apply(a).sum().backward(lib.ones((), requires_grad=True), create_graph=True)
    assert a.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert _graph_desc(a.grad.grad_fn) == "CopyBackwards(None, Error(AccumulateGrad()))"
    a.grad = None


def test_setup_context_style(lib):
    class Mul(lib.autograd.Function):
        @staticmethod
        def forward(x, k):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            _, k = inputs
            ctx.k = k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    x = lib.ones(2, requires_grad=True)
    y = Mul.apply(x, 4.0)
    y.sum().backward()
    assert (x.grad.tolist(), y.grad_fn.name()) == ([4.0, 4.0], "MulBackward")


def test_double_backward_through_a_custom_function(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x**2 * g

    x = lib.tensor([2.0], requires_grad=True)
    (g,) = lib.autograd.grad(Cube.apply(x), x, create_graph=True)
    g.backward()
    assert (g.tolist(), x.grad.tolist()) == ([12.0], [12.0])
    assert lib.autograd.gradgradcheck(
        Cube.apply, (lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True),)
    )


def test_saved_tensor_modified_in_place_raises(lib):
    class Keep(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x

    x = lib.ones(2, requires_grad=True)
    b = x * 1
    y = Keep.apply(b)
    b.add_(1)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert first_line(info).startswith(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.FloatTensor [2]], which is output 0 of Add, is at version 1; "
        "expected version 0 instead."
    )


def test_save_for_backward_takes_tensors_only(lib):
    class SaveNumber(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x

    with pytest.raises(
        TypeError,
        match=re.escape("save_for_backward can only save variables, but argument 1 is of type int"),
    ):
        SaveNumber.apply(lib.ones(1, requires_grad=True))


def test_function_must_not_be_instantiated():
    class Legacy(dyngrad.autograd.Function):
        pass

    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        fn = Legacy()
    with pytest.raises(
        RuntimeError, match="Legacy autograd function with non-static forward method is deprecated"
    ):
        fn(dyngrad.ones(1))


def test_ctx_is_the_backward_node_and_lives_with_the_graph():
    import gc
    import weakref

    CustomScale, _ = article_functions(dyngrad)
    y = CustomScale.apply(dyngrad.ones(2, requires_grad=True), dyngrad.tensor(2.0))
    ctx = weakref.ref(y.grad_fn)
    gc.disable()
    try:
        del y
        assert ctx() is None
    finally:
        gc.enable()


class SavedExp:
    """A Function saving its own output, as seed 004's StableSoftmax does."""

    @staticmethod
    def make(lib):
        class Exp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = x.exp()
                ctx.save_for_backward(out)
                return out

            @staticmethod
            def backward(ctx, g):
                (out,) = ctx.saved_tensors
                return g * out

        return Exp


def test_saved_output_rebuilds_its_history(lib):
    Exp = SavedExp.make(lib)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (g,) = lib.autograd.grad(Exp.apply(x).sum(), x, create_graph=True)
    assert [n.name() if n else None for n, _ in g.grad_fn.next_functions] == [None, "ExpBackward"]
    (h,) = lib.autograd.grad(g.sum(), x)
    assert h.tolist() == pytest.approx([2.7182818, 7.3890561])


def test_saved_output_modified_in_place_names_the_function(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = SavedExp.make(lib).apply(x)
    y.mul_(2)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert "[torch.FloatTensor [2]], which is output 0 of Exp, is at version 1;" in first_line(info)


def test_saved_output_makes_no_reference_cycle():
    # regression: ctx -> saved output -> grad_fn ctx kept every such graph until a gc pass
    import gc
    import weakref

    _, StableSoftmax = article_functions(dyngrad)
    y = StableSoftmax.apply(dyngrad.ones(2, 3, requires_grad=True))
    node, output = weakref.ref(y.grad_fn), weakref.ref(y)
    gc.disable()
    try:
        del y
        assert node() is None and output() is None
    finally:
        gc.enable()
