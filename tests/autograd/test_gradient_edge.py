"""Gradient edges (`get_gradient_edge`, `GradientEdge` in backward/grad), `output_nr`,
`increment_version`, `register_multi_grad_hook`, the execution engine's final callbacks and
the bits of `torch._C` Python code calls.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import warnings

import pytest


def test_output_nr_counts_the_outputs_of_a_node(lib):
    x = lib.randn(10, requires_grad=True)
    a, b = x.split(5)
    assert (x.output_nr, a.output_nr, b.output_nr) == (0, 0, 1)

    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:5], x[5:]

        @staticmethod
        def backward(ctx, *grads):
            return lib.cat(grads)

    seen = []

    class Saves(lib.autograd.Function):
        @staticmethod
        def forward(ctx, b):
            ctx.save_for_backward(b)
            return b * 2

        @staticmethod
        def backward(ctx, g):
            seen.append(ctx.saved_tensors[0].output_nr)
            return g

    _, second = Two.apply(x)
    assert second.output_nr == 1
    Saves.apply(second).sum().backward()
    assert seen == [1]


def test_grad_to_an_edge_equals_grad_to_the_tensor(lib):
    x = lib.rand(2, requires_grad=True)
    for inp in (x, x.clone(), lib.var_mean(x.clone())[1]):
        out = inp.clone()
        edge = lib.autograd.graph.get_gradient_edge(inp)
        assert edge.node is (inp.grad_fn or edge.node) and edge.output_nr == inp.output_nr
        assert lib.autograd.grad(out.sum(), edge)[0].tolist() == (
            lib.autograd.grad(out.sum(), inp)[0].tolist()
        )


def test_an_edge_keeps_pointing_at_the_old_version(lib):
    x = lib.rand(2, requires_grad=True).clone()
    edge = lib.autograd.graph.get_gradient_edge(x)
    x *= 2
    old, new = lib.autograd.grad(x.sum(), (edge, x))
    assert old.tolist() == [2.0, 2.0] and new.tolist() == [1.0, 1.0]


def test_edges_built_by_hand_and_mixed_with_tensors(lib):
    Edge = lib.autograd.graph.GradientEdge
    x = lib.rand(2, requires_grad=True).clone()
    y = lib.rand(2, requires_grad=True).clone()
    out = x + y
    edges = (Edge(x.grad_fn, x.output_nr), Edge(y.grad_fn, y.output_nr))
    ref = lib.autograd.grad(out.sum(), (x, y), retain_graph=True)
    new = lib.autograd.grad(out.sum(), edges, retain_graph=True)
    assert [g.tolist() for g in ref] == [g.tolist() for g in new]
    lib.autograd.backward(out.sum(), inputs=(edges[0], y))  # backward takes them too


def test_materialize_grads_needs_tensors(lib):
    Edge = lib.autograd.graph.GradientEdge
    x = lib.rand(2, requires_grad=True).clone()
    y = lib.rand(2, requires_grad=True).clone()
    out = x.clone()
    lib.autograd.grad(out.sum(), (x, y), allow_unused=True, materialize_grads=True)
    with pytest.raises(
        RuntimeError,
        match="materialize_grads cannot be used when the given input is a GradientEdge",
    ):
        lib.autograd.grad(
            out.sum(), (x, Edge(y.grad_fn, 0)), allow_unused=True, materialize_grads=True
        )


def test_backward_from_an_edge(lib):
    inp = lib.rand(1, requires_grad=True)
    out = inp.clone() * 3
    edge = lib.autograd.graph.get_gradient_edge(out)
    lib.autograd.backward(edge, retain_graph=True)
    del out
    lib.autograd.backward(edge)  # the edge holds the graph
    assert inp.grad.tolist() == [pytest.approx(6.0)]


def test_get_gradient_edge_needs_a_tensor_requiring_grad(lib):
    with pytest.raises(RuntimeError, match="It is not possible to get the gradient edge"):
        lib.autograd.graph.get_gradient_edge(lib.ones(1))


def test_grad_takes_a_dict_of_inputs(lib):
    x = lib.ones(2, requires_grad=True)
    grads = lib.autograd.grad((x * 3).sum(), {"x": x})
    assert list(grads) == ["x"] and grads["x"].tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="`inputs` argument to `grad\\(\\)` cannot be empty."):
        lib.autograd.grad((x * 3).sum(), ())


def test_increment_version(lib):
    a = lib.rand(5, requires_grad=True)
    v = a._version
    lib.autograd.graph.increment_version(a)
    b = lib.zeros(5, dtype=lib.int32)
    lib.autograd.graph.increment_version([a, b])
    assert (a._version, b._version) == (v + 2, 1)
    with lib.inference_mode():
        c = lib.rand(5)
    lib.autograd.graph.increment_version(c)  # no version to bump: no error either


def _hook_order(lib, mode):
    calls = []
    a = lib.rand(2, 3, requires_grad=True)
    b = lib.rand(2, 3, requires_grad=True)
    c = a * b
    d = a * b
    handle = lib.autograd.graph.register_multi_grad_hook(
        (a, b, c, d), lambda grads: calls.append(grads), mode=mode
    )
    return calls, (a, b, c, d), handle


def test_multi_grad_hook_all_waits_for_every_gradient_of_the_pass(lib):
    calls, (a, b, c, d), handle = _hook_order(lib, "all")
    c.sum().backward(retain_graph=True)
    assert [g is not None for g in calls[-1]] == [True, True, True, False]
    c.sum().backward(inputs=(a,), retain_graph=True)
    assert [g is not None for g in calls[-1]] == [True, False, True, False]
    handle.remove()
    c.sum().backward(retain_graph=True)
    assert len(calls) == 2


def test_multi_grad_hook_any_runs_once_per_pass(lib):
    calls, (a, b, c, d), handle = _hook_order(lib, "any")
    (c + d).sum().backward(retain_graph=True)
    (c + d).sum().backward()
    assert len(calls) == 2 and calls[0].shape == (2, 3)


def test_multi_grad_hook_modes(lib):
    t = lib.rand(2, requires_grad=True)
    with pytest.raises(ValueError, match=r"Expects mode to be one of \('all', 'any'\) but got foo"):
        lib.autograd.graph.register_multi_grad_hook((t,), lambda _: None, mode="foo")


def _passes_through(lib, callback=None):
    class Identity(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            if callback is not None:
                lib.autograd.Variable._execution_engine.queue_callback(callback)
            return g

    return Identity


def test_queue_callback_runs_at_the_end_of_the_pass(lib):
    order = []

    def later():
        order.append("callback")
        lib.autograd.Variable._execution_engine.queue_callback(lambda: order.append("more"))

    x = lib.rand(3, requires_grad=True)
    x.register_hook(lambda g: order.append("leaf"))
    _passes_through(lib, later).apply(x).sum().backward()
    assert order == ["leaf", "callback", "more"]
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward"):
        lib.autograd.Variable._execution_engine.queue_callback(later)


def test_a_callback_queued_in_a_reentrant_pass_belongs_to_it(lib):
    counter = {"inner": 0, "outer": 0}
    Inner = _passes_through(lib, lambda: counter.__setitem__("inner", counter["inner"] + 1))

    class Reentrant(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            lib.autograd.Variable._execution_engine.queue_callback(
                lambda: counter.__setitem__("outer", counter["outer"] + 1)
            )
            tmp = g.detach().requires_grad_()
            with lib.enable_grad():
                out = Inner.apply(tmp).sum()
            out.backward()
            assert counter == {"inner": 1, "outer": 0}
            return g

    Reentrant.apply(lib.rand(3, 3, requires_grad=True)).sum().backward()
    assert counter == {"inner": 1, "outer": 1}


def test_private_c_functions_python_code_calls(lib):
    seen = []
    x = lib.rand(2, requires_grad=True)
    y = x * 2
    z = x * 3

    def hook(g):
        seen.append(
            (
                lib._C._current_graph_task_id() >= 0,
                lib._C._will_engine_execute_node(y.grad_fn),
                lib._C._will_engine_execute_node(z.grad_fn),
            )
        )

    y.register_hook(hook)
    assert lib._C._current_graph_task_id() == -1 and lib._C.is_grad_enabled()
    y.sum().backward()
    assert seen == [(True, True, False)]


def test_old_names(lib):
    assert lib.autograd.torch is lib
    v = lib.autograd.torch.randn(3, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert v.volatile is False
    assert "volatile was removed" in str(caught[0].message)
    assert lib.autograd.Variable._execution_engine.is_checkpoint_valid()


def test_hand_built_nodes_of_c_functions(lib):
    x = lib.ones(2, requires_grad=True)
    y = lib._C._functions.UndefinedGrad()(x * 2)
    assert type(y.grad_fn).__name__ == "UndefinedGradBackward"
    (y * 3).sum().backward()
    assert x.grad is None  # no gradient came through
    z = lib._C._functions.DelayedError("Boom!", 1)(x * 2)
    with pytest.raises(RuntimeError, match="Boom!"):
        z.sum().backward()


def test_delayed_error_of_several_tensors(lib):
    # one Error node for all: output_nr is the position, an edge only to inputs that require
    # grad, None passes through; every output of an executable node carries it
    x = lib.ones(2, requires_grad=True)
    a, b, c = lib._C._functions.DelayedError(b"Boom!", 3)(x * 2, lib.ones(2), None)
    assert c is None and a.grad_fn is b.grad_fn and (a.output_nr, b.output_nr) == (0, 1)
    assert b.requires_grad and a.tolist() == [2.0, 2.0]
    assert [type(n).__name__ if n else None for n, _ in a.grad_fn.next_functions] == [
        "MulBackward0",
        None,
        None,
    ]
    with pytest.raises(RuntimeError, match="Boom!"):
        (a.sum() + b.sum()).backward()
    plain = lib._C._functions.DelayedError(b"Boom!", 1)(lib.ones(2))
    assert (plain.requires_grad, plain.grad_fn) == (False, None)


def test_grad_does_not_run_a_root_that_reaches_no_input(lib):
    calls = []

    class Spy(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            calls.append("ran")
            return g

    y = lib.randn(1, requires_grad=True)
    z = lib.randn(1, requires_grad=True)
    x = Spy.apply(lib.randn(1, requires_grad=True) * 2)
    assert lib.autograd.grad(x, (y,), allow_unused=True) == (None,)
    x = Spy.apply(lib.randn(1, requires_grad=True) * 2)
    gy, gz = lib.autograd.grad(x + z, (y, z), allow_unused=True)
    assert gy is None and gz.tolist() == [1.0]
    x = Spy.apply(lib.randn(1, requires_grad=True) * 2)
    lib.autograd.backward(x, inputs=(y,))  # allow_unused is implied
    assert y.grad is None and calls == []
    b = y * 2  # a root that is itself the input
    assert lib.autograd.grad(b, b, lib.ones(1))[0].tolist() == [1.0]


def test_set_gives_a_leaf_a_new_accumulator(lib):
    x = lib.rand(2, requires_grad=True)
    before = lib.autograd.graph.get_gradient_edge(x)
    out = x.clone()
    with lib.no_grad():
        x.set_(lib.rand_like(x))
    assert lib.autograd.graph.get_gradient_edge(x).node is not before.node
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        lib.autograd.grad(out.sum(), x)
    (g,) = lib.autograd.grad(out.sum(), before)
    assert g.tolist() == [1.0, 1.0] and x.grad is None
    y = lib.rand(2, requires_grad=True)
    out = y * 1
    y.data = lib.rand(2)  # `.data =` keeps the accumulator
    assert out.grad_fn.next_functions[0][0] is lib.autograd.graph.get_gradient_edge(y).node
