"""The engine: backward, autograd.grad, accumulation, freeing, errors, hooks and order.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import math
import re
import warnings

import pytest

import dyngrad

from .conftest import first_line

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved "
    "tensors after they have already been freed)."
)


# ---- backward ------------------------------------------------------------------------------------


def test_backward_of_a_scalar(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = lib.tensor([3.0, 4.0], requires_grad=True)
    loss = (x * y).sum()
    assert loss.item() == 11.0
    loss.backward()
    assert (x.grad.tolist(), y.grad.tolist()) == ([3.0, 4.0], [1.0, 2.0])  # seed 000's numbers


def test_backward_of_a_0d_leaf(lib):
    a = lib.tensor(3.0, requires_grad=True)
    a.backward()
    assert (a.grad.item(), a.grad.shape) == (1.0, ())


def test_backward_with_a_gradient(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (x * x).backward(lib.tensor([1.0, 0.5]))
    assert x.grad.tolist() == [2.0, 2.0]


def test_backward_casts_the_root_gradient_to_the_output_dtype(lib):
    x = lib.ones(2, requires_grad=True)
    (x * 2).backward(lib.ones(2, dtype=lib.float64))
    (x * 2).backward(lib.ones(2, dtype=lib.int64))
    assert (x.grad.dtype, x.grad.tolist()) == (lib.float32, [4.0, 4.0])


def test_gradients_accumulate_into_leaves(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(3):
        (x * x).sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]


def test_autograd_backward_with_several_roots(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    lib.autograd.backward([(x * 2).sum(), (x * x).sum()])
    assert x.grad.tolist() == [4.0, 6.0]
    x.grad = None
    lib.autograd.backward([x * 2, x * 3], [lib.ones(2), lib.tensor([1.0, 2.0])])
    assert x.grad.tolist() == [5.0, 8.0]


def test_backward_inputs_limits_accumulation(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([3.0, 4.0], requires_grad=True)
    (x * w).sum().backward(inputs=[w])
    assert x.grad is None and w.grad.tolist() == [1.0, 2.0]
    (x * w).sum().backward(inputs=x)
    assert x.grad.tolist() == [3.0, 4.0]


def test_backward_inputs_accumulates_into_non_leaves_too(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    (y * y).sum().backward(inputs=[y])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert y.grad.tolist() == [4.0, 8.0]
    assert x.grad is None


# ---- autograd.grad ------------------------------------------------------------------------------


def test_grad_returns_gradients_and_leaves_dot_grad_alone(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([3.0, 4.0], requires_grad=True)
    gx, gw = lib.autograd.grad((x * w).sum(), [x, w])
    assert (gx.tolist(), gw.tolist()) == ([3.0, 4.0], [1.0, 2.0])
    assert x.grad is None and w.grad is None
    assert not gx.requires_grad


def test_grad_with_grad_outputs(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (g,) = lib.autograd.grad(x * x, x, lib.tensor([1.0, 10.0]))
    assert g.tolist() == [2.0, 40.0]


def test_grad_of_several_outputs_sums(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (g,) = lib.autograd.grad([(x * 2).sum(), (x * x).sum()], x)
    assert g.tolist() == [4.0, 6.0]


def test_grad_with_respect_to_a_non_leaf(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    gy, gx = lib.autograd.grad((y * 3).sum(), [y, x])
    assert (gy.tolist(), gx.tolist()) == ([3.0, 3.0], [6.0, 6.0])


def test_grad_of_an_output_with_respect_to_itself(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    assert lib.autograd.grad(x, x, lib.ones(2))[0].tolist() == [1.0, 1.0]
    assert lib.autograd.grad((x * 2).sum(), (x, x))[1].tolist() == [2.0, 2.0]


def test_unused_inputs(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        lib.autograd.grad((x * 2).sum(), [x, w])
    assert str(info.value) == (
        "The differentiated Tensor at index 1 appears to not have been used in the graph. "
        "Set allow_unused=True if this is the desired behavior."
    )
    gx, gw = lib.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)
    assert gx.tolist() == [2.0, 2.0] and gw is None
    gx, gw = lib.autograd.grad((x * 2).sum(), [x, w], materialize_grads=True)
    assert gw.tolist() == [0.0]


def test_materialized_grads_require_grad_under_create_graph(lib):
    x = lib.ones(2, requires_grad=True)
    w = lib.ones(2, requires_grad=True)
    _, gw = lib.autograd.grad((x * 2).sum(), [x, w], materialize_grads=True, create_graph=True)
    assert (gw.tolist(), gw.requires_grad, gw.is_leaf) == ([0.0, 0.0], True, True)


def test_materialize_grads_refuses_allow_unused_false(lib):
    x = lib.ones(2, requires_grad=True)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but "
            "got: allow_unused=False."
        ),
    ):
        lib.autograd.grad((x * 2).sum(), x, allow_unused=False, materialize_grads=True)


# ---- create_graph and higher order ------------------------------------------------------------


def test_create_graph_gives_differentiable_gradients(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (g,) = lib.autograd.grad((x**3).sum(), x, create_graph=True)
    assert (g.tolist(), g.requires_grad, g.grad_fn.name()) == ([3.0, 12.0], True, "MulBackward0")
    (h,) = lib.autograd.grad(g.sum(), x)
    assert h.tolist() == [6.0, 12.0]


def test_third_derivative(lib):
    x = lib.tensor(2.0, requires_grad=True)
    y = x**4
    (d1,) = lib.autograd.grad(y, x, create_graph=True)
    (d2,) = lib.autograd.grad(d1, x, create_graph=True)
    (d3,) = lib.autograd.grad(d2, x)
    assert (d1.item(), d2.item(), d3.item()) == (32.0, 48.0, 48.0)


def test_hessian_vector_product(lib):
    x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    v = lib.tensor([1.0, 0.0, 1.0], dtype=lib.float64)
    f = (x.sin() * x).sum()
    (g,) = lib.autograd.grad(f, x, create_graph=True)
    (hv,) = lib.autograd.grad(g, x, v)
    # d2/dx2 (x sin x) = 2 cos x - x sin x, a diagonal Hessian
    expected = [
        2 * c - t * s
        for t, c, s in zip([1.0, 0.0, 3.0], x.detach().cos().tolist(), x.detach().sin().tolist())
    ]
    assert hv.tolist() == pytest.approx([expected[0], 0.0, expected[2]], rel=1e-12)
    assert hv.tolist() == pytest.approx([0.23913362692838303, 0.0, -2.4033450578077637])


def test_gradient_penalty(lib):
    w = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64, requires_grad=True)
    x = lib.tensor([[0.5, -1.0]], dtype=lib.float64, requires_grad=True)
    out = (x @ w).tanh().sum()
    (gx,) = lib.autograd.grad(out, x, create_graph=True)
    penalty = ((gx * gx).sum().sqrt() - 1) ** 2
    penalty.backward()
    assert w.grad.reshape(-1).tolist() == pytest.approx(
        [-0.1613296182242124, -0.08247524657788487, 0.24583471676573118, 0.13644766879896186],
        rel=1e-12,
    )
    # the penalty depends on x through gx too, so x gets a gradient as well
    assert x.grad[0].tolist() == pytest.approx(
        [-0.5940430141958672, -1.4771537623039288], rel=1e-12
    )


def test_backward_with_create_graph_builds_grad_history(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (x**3).sum().backward(create_graph=True)
        first = x.grad
        assert (first.requires_grad, first.grad_fn.name()) == (
            True,
            "torch::autograd::CopyBackwards",
        )
        (x * x).sum().backward(create_graph=True)
    assert x.grad.grad_fn.name() == "AddBackward0" and x.grad.tolist() == [5.0, 16.0]
    gx = x.grad
    x.grad = None
    gx.sum().backward()
    assert x.grad.tolist() == [8.0, 14.0]


def test_create_graph_grad_is_not_the_passed_gradient(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    g = lib.ones(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x.backward(g, create_graph=True)
    assert x.grad is not g and x.grad.grad_fn.name() == "torch::autograd::CopyBackwards"


def test_backward_with_create_graph_warns_about_the_cycle(lib):
    # PyTorch warns once per process, every time with warn-always set
    x = lib.ones(2, requires_grad=True)
    previous = lib.is_warn_always_enabled()
    lib.set_warn_always(True)
    try:
        for _ in range(2):
            with pytest.warns(
                UserWarning,
                match="Using backward\\(\\) with create_graph=True will create a reference cycle",
            ):
                (x * x).sum().backward(create_graph=True)
            x.grad = None
        with warnings.catch_warnings():  # grad() makes no cycle: no warning
            warnings.simplefilter("error")
            lib.autograd.grad((x * x).sum(), x, create_graph=True)
    finally:
        lib.set_warn_always(previous)


def test_retain_graph_defaults_to_create_graph(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x**2).sum()
    lib.autograd.grad(y, x, create_graph=True)
    assert lib.autograd.grad(y, x)[0].tolist() == [2.0, 4.0]  # the graph was kept
    with pytest.raises(RuntimeError, match=re.escape(SECOND_BACKWARD)):
        lib.autograd.grad(y, x)


# ---- freeing the graph ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make", [lambda x: (x * 3).sum(), lambda x: (x**2).sum(), lambda x: x.exp().sum()]
)
def test_second_backward_raises_when_a_node_saved_tensors(lib, make):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = make(x)
    y.backward()
    with pytest.raises(RuntimeError) as info:
        y.backward()
    assert first_line(info).startswith(
        SECOND_BACKWARD + " Saved intermediate values of the graph "
        "are freed when you call .backward() or autograd.grad()."
    )


def test_a_graph_of_additions_can_be_walked_twice(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x + 3).sum()
    y.backward()
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_retain_graph_allows_a_second_backward(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_backward_releases_every_saved_buffer():
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    a = x * x
    b = a.exp()
    c = b.sum()
    nodes = [a.grad_fn, b.grad_fn]
    assert all(n._saved for n in nodes)
    c.backward()
    assert [n._saved for n in nodes] == [None, None]


def test_retained_graph_keeps_saved_buffers():
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.sum().backward(retain_graph=True)
    assert y.grad_fn._saved


def test_second_backward_names_the_freed_node():
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError) as info:
        y.backward()
    detail = str(info.value).split("\n")[1]
    assert detail.startswith("[dyngrad] MulBackward0") and "retain_graph=True" in detail


# ---- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "run,message",
    [
        (
            lambda lib, x: (x * 2).backward(),
            "grad can be implicitly created only for scalar outputs",
        ),
        (
            lambda lib, x: lib.tensor([1.0]).backward(),
            "element 0 of tensors does not require grad and does not have a grad_fn",
        ),
        (
            lambda lib, x: lib.autograd.grad(lib.ones(2).sum(), x),
            "element 0 of tensors does not require grad and does not have a grad_fn",
        ),
        (
            lambda lib, x: (x > 0).sum().backward(),
            "element 0 of tensors does not require grad and does not have a grad_fn",
        ),
        (
            lambda lib, x: lib.autograd.backward([(x * 2).sum(), (x * 3).sum()], [lib.tensor(1.0)]),
            "got 2 tensors and 1 gradients",
        ),
        (
            lambda lib, x: lib.autograd.grad([(x * 2).sum(), (x * 3).sum()], x, [lib.tensor(1.0)]),
            "got 2 tensors and 1 gradients",
        ),
        (
            lambda lib, x: lib.autograd.grad((x * 2).sum(), [x, 3]),
            "all inputs have to be Tensors or GradientEdges, but got int",
        ),
        (
            lambda lib, x: lib.autograd.grad((x * 2).sum(), lib.ones(2)),
            "One of the differentiated Tensors does not require grad",
        ),
        (
            lambda lib, x: (x * 2).sum().backward(inputs=[]),
            "`inputs` argument to `backward()` cannot be empty.",
        ),
        (
            lambda lib, x: (x * 2).sum().backward(inputs=[lib.ones(2)]),
            "can't retain_grad on Tensor that has requires_grad=False",
        ),
        (
            lambda lib, x: lib.autograd.grad(x * 2, x, lib.ones(3)),
            "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a "
            "shape of torch.Size([2]).",
        ),
        (
            lambda lib, x: (x * 2).backward(lib.ones(3)),
            "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a "
            "shape of torch.Size([2]).",
        ),
    ],
)
def test_engine_errors(lib, run, message):
    x = lib.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        run(lib, x)
    assert first_line(info) == message


def test_no_grad_fn_error_explains_the_cause():
    with pytest.raises(RuntimeError) as info:
        dyngrad.tensor([1.0]).backward()
    detail = str(info.value).split("\n")[1]
    assert detail.startswith("[dyngrad] The tensor") and "requires_grad=False" in detail


# ---- gradients: shapes, dtypes, aliasing ----------------------------------------------------------


def test_broadcast_gradients_sum_back_to_each_shape(lib):
    a = lib.ones(2, 1, requires_grad=True)
    b = lib.ones(1, 3, requires_grad=True)
    s = lib.ones((), requires_grad=True)
    (a + b * s).sum().backward()
    assert (a.grad.tolist(), b.grad.tolist()) == ([[3.0], [3.0]], [[2.0, 2.0, 2.0]])
    assert (s.grad.shape, s.grad.item()) == ((), 6.0)


def test_gradients_take_each_leafs_dtype(lib):
    a = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
    b = lib.ones(3, requires_grad=True)
    h = lib.ones(3, dtype=lib.float16, requires_grad=True)
    (a * b * h).sum().backward()
    assert (a.grad.dtype, b.grad.dtype, h.grad.dtype) == (lib.float64, lib.float32, lib.float16)
    assert b.grad.tolist() == [2.0, 2.0, 2.0]


def test_a_leafs_grad_never_aliases_another_leafs(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    (a + b).sum().backward()
    a.grad.mul_(2)
    assert (a.grad.tolist(), b.grad.tolist()) == ([2.0, 2.0], [1.0, 1.0])


def test_a_leafs_grad_never_aliases_the_passed_gradient(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    g = lib.ones(2)
    (a + 0).backward(g)
    g.mul_(5)
    assert a.grad.tolist() == [1.0, 1.0]
    b = lib.tensor([1.0, 2.0], requires_grad=True)
    b.backward(g)
    assert b.grad is not g


def test_a_leaf_used_twice_gets_the_sum(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    (a + a).sum().backward()
    assert a.grad.tolist() == [2.0, 2.0]


def test_accumulation_keeps_the_grad_tensor(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    (a * 2).sum().backward()
    first = a.grad
    (a * 2).sum().backward()
    assert a.grad is first and first.tolist() == [4.0, 4.0]


# ---- hooks -----------------------------------------------------------------------------------------


def test_tensor_hooks_on_leaf_and_non_leaf(lib):
    log = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    hx = x.register_hook(lambda g: log.append(("x", g.tolist())))
    y = x * 2
    hy = y.register_hook(lambda g: g * 10)  # a hook may return a new gradient
    z = y.sum()
    z.register_hook(lambda g: log.append(("z", g.item())))
    z.backward()
    assert log == [("z", 1.0), ("x", [20.0, 20.0])] and x.grad.tolist() == [20.0, 20.0]
    hx.remove()
    hy.remove()
    log.clear()
    x.grad = None
    (x * 2).sum().backward()
    assert log == [] and x.grad.tolist() == [2.0, 2.0]


def test_removable_handle_as_context_manager(lib):
    x = lib.tensor([1.0], requires_grad=True)
    with x.register_hook(lambda g: g * 0):
        pass
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0]


def test_leaf_hook_can_replace_the_gradient(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g + 1)
    (x * 3).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]


def test_leaf_hook_runs_once_with_the_total(lib):
    calls = []
    x = lib.tensor([1.0], requires_grad=True)
    x.register_hook(lambda g: calls.append(g.item()))
    (x * 2 + x * 3).sum().backward()
    assert calls == [5.0]


def test_hooks_need_requires_grad(lib):
    with pytest.raises(
        RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"
    ):
        lib.ones(2).register_hook(lambda g: g)


def test_post_accumulate_grad_hooks(lib):
    seen = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (x * 3).sum().backward()
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0], [6.0, 6.0]]
    with pytest.raises(
        RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf tensors"
    ):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)


def test_node_pre_hooks_and_hooks(lib):
    log = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda go: log.append(("pre", [g.tolist() for g in go])))
    y.grad_fn.register_hook(
        lambda gi, go: log.append(
            ("post", [None if g is None else g.tolist() for g in gi], [g.tolist() for g in go])
        )
    )
    y.sum().backward()
    assert log == [("pre", [[1.0, 1.0]]), ("post", [[2.0, 2.0], None], [[1.0, 1.0]])]


def test_node_hooks_can_replace_gradients(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda go: (go[0] * 3,))
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]
    x.grad = None
    y = x * 2
    handle = y.grad_fn.register_hook(lambda gi, go: (gi[0] * 5, None))
    y.sum().backward(retain_graph=True)
    assert x.grad.tolist() == [10.0, 10.0]
    handle.remove()
    y.sum().backward()
    assert x.grad.tolist() == [12.0, 12.0]


@pytest.mark.parametrize("retain_first", [True, False])
def test_retain_grad_sees_the_hooked_gradient(lib, retain_first):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    if retain_first:
        y.retain_grad()
    y.register_hook(lambda g: g * 100)
    if not retain_first:
        y.retain_grad()
    y.sum().backward()
    assert (y.grad.tolist(), x.grad.tolist()) == ([100.0, 100.0], [200.0, 200.0])


# ---- execution order --------------------------------------------------------------------------------


def test_diamond_runs_each_node_once_latest_first(lib):
    order = []
    x = lib.tensor(3.0, requires_grad=True)
    a = x * 2
    b = a.exp()
    c = a.sin()
    for t, name in ((a, "a"), (b, "b"), (c, "c")):
        t.grad_fn.register_prehook(lambda go, name=name: order.append(name))
    (b + c).backward()
    assert order == ["c", "b", "a"]
    assert x.grad.item() == pytest.approx(2 * (math.exp(6) + math.cos(6)), rel=1e-6)


def test_shared_subgraph_gets_both_gradients(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    s = x * x
    (s.sum() + (s * 3).sum()).backward()
    assert x.grad.tolist() == [8.0, 16.0]


def test_a_node_waits_for_all_its_consumers(lib):
    seen = []
    x = lib.tensor([1.0], requires_grad=True)
    s = x * 1
    s.grad_fn.register_prehook(lambda go: seen.append(go[0].item()))
    deep = s.exp().log().sin().cos()
    (s * 2 + deep).sum().backward()
    # d/ds [2s + cos(sin(log(exp(s))))] at s = 1
    assert len(seen) == 1 and seen[0] == pytest.approx(2 - math.sin(math.sin(1)) * math.cos(1))


def test_summed_gradient_passed_on_is_not_added_into_in_place():
    # q's gradient is a sum the engine made; AddBackward hands that same tensor to u and v.
    # u then collects one more gradient: adding it in place would change v's too.
    x = dyngrad.tensor([1.0], requires_grad=True)
    u, v = x * 2, x * 3
    q = u + v
    loss = (q * 1 + q * 1).sum() + (u * 5).sum()
    loss.backward()
    assert x.grad.tolist() == [2 * (2 + 5) + 3 * 2]


def test_the_last_leaf_handed_a_gradient_adopts_it(lib):
    # PyTorch's AccumulateGrad steals a gradient nobody else holds: of two leaves handed the
    # same tensor, the first copies it and the second keeps it
    seen = []

    class Both(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            seen.append(g.data_ptr())
            return g, g

    a, b = lib.randn(5, 6, requires_grad=True), lib.randn(5, 6, requires_grad=True)
    Both.apply(a, b)[1][0].backward()
    pointers = {a.grad.data_ptr(), b.grad.data_ptr()}
    assert len(pointers) == 2 and seen[0] in pointers
    root = lib.ones(2)
    x = lib.ones(2, requires_grad=True)
    x.backward(root)  # the caller's gradient is never adopted
    assert x.grad.data_ptr() != root.data_ptr()


def test_a_gradient_nobody_else_holds_becomes_the_grad_itself(lib):
    pointers = []

    class Fresh(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            out = g * 3
            pointers.append(out.data_ptr())  # the address only: nothing holds `out`
            return out

    x = lib.ones(3, requires_grad=True)
    Fresh.apply(x).sum().backward()
    assert x.grad.data_ptr() == pointers[0]


def test_a_gradient_a_hook_keeps_is_copied(lib):
    # the hook's tensor stays as it was when the leaf's .grad accumulates later
    x = lib.ones(3, requires_grad=True)
    kept = []
    x.register_hook(kept.append)
    (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert kept[0].tolist() == [2.0, 2.0, 2.0] and x.grad.tolist() == [4.0, 4.0, 4.0]
    passed = []

    class Pass(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            passed.append(g)
            return g

    y = lib.ones(3, requires_grad=True)
    (Pass.apply(y) * 2).sum().backward()
    assert y.grad.data_ptr() != passed[0].data_ptr()


def test_the_same_root_twice_sums_its_gradients(lib):
    a = lib.randn(5, 5, requires_grad=True)
    b = lib.randn(5, 5, requires_grad=True)
    x = a * b
    g = lib.randn_like(x)
    lib.autograd.backward([x, x], [g, g])
    assert lib.allclose(a.grad, b * g * 2) and lib.allclose(b.grad, a * g * 2)


def test_non_leaf_hook_sees_none_when_its_output_gets_no_gradient(lib):
    # PyTorch runs a tensor's hooks whenever its node runs: an undefined gradient comes as None
    x = lib.randn(5, requires_grad=True)
    parts = x.unbind()
    seen = []
    parts[0].register_hook(seen.append)
    parts[0].backward()
    parts[2].backward()
    assert seen[0].item() == 1.0 and seen[1] is None
    assert x.grad.tolist() == [1.0, 0.0, 1.0, 0.0, 0.0]
