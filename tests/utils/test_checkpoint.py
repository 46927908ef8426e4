"""torch.utils.checkpoint: checkpoint (reentrant and not), checkpoint_sequential, nesting,
RNG replay, non-determinism detection, errors, and what a checkpointed graph saves.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import dyngrad

VARIANTS = pytest.mark.parametrize("use_reentrant", [True, False])


def block(lib, w):
    def fn(x):
        return lib.tanh(x @ w).sin() * x.exp()

    return fn


def inputs(lib, dtype=None):
    dtype = dtype or lib.float64
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((3, 4)), dtype=dtype, requires_grad=True)
    w = lib.tensor(rng.standard_normal((4, 4)), dtype=dtype, requires_grad=True)
    return x, w


@VARIANTS
def test_values_and_gradients_equal_the_plain_run(lib, use_reentrant):
    x, w = inputs(lib)
    fn = block(lib, w)
    plain = fn(x)
    plain.sum().backward()
    expected = (plain.detach().clone(), x.grad.clone(), w.grad.clone())
    x.grad = w.grad = None
    out = lib.utils.checkpoint.checkpoint(fn, x, use_reentrant=use_reentrant)
    out.sum().backward()
    assert lib.equal(out, expected[0])
    assert lib.allclose(x.grad, expected[1]) and lib.allclose(w.grad, expected[2])
    assert out.grad_fn.name() == ("CheckpointFunctionBackward" if use_reentrant else "MulBackward0")


def test_gradcheck_through_a_checkpoint(lib):
    # (gradcheck runs autograd.grad, which a reentrant checkpoint refuses, as torch's does)
    x, w = inputs(lib)

    def fn(x, w):
        return lib.utils.checkpoint.checkpoint(block(lib, w), x, use_reentrant=False)

    assert lib.autograd.gradcheck(fn, (x, w))


def test_gradgradcheck_through_a_non_reentrant_checkpoint(lib):
    x, w = inputs(lib)

    def fn(x, w):
        return lib.utils.checkpoint.checkpoint(block(lib, w), x, use_reentrant=False)

    assert lib.autograd.gradgradcheck(fn, (x, w))


def test_warns_when_use_reentrant_is_not_passed(lib):
    x, w = inputs(lib)
    with pytest.warns(UserWarning) as record:
        lib.utils.checkpoint.checkpoint(block(lib, w), x)
    assert str(record[0].message) == (
        "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
        "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
        "exception. use_reentrant=False is recommended, but if you need to preserve the "
        "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
        "details on the differences between the two variants."
    )
    layers = lib.nn.Sequential(lib.nn.Linear(4, 4), lib.nn.Tanh())
    with pytest.warns(UserWarning) as record:
        lib.utils.checkpoint.checkpoint_sequential(layers, 1, lib.randn(2, 4))
    assert str(record[0].message).startswith(
        "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
        "passed explicitly. In version 2.9 we will raise an exception"
    )


def test_reentrant_checkpoint_cannot_serve_autograd_grad(lib):
    a = lib.randn(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError) as excinfo:
        b = lib.utils.checkpoint.checkpoint(lib.exp, a, use_reentrant=True).sum()
        lib.autograd.grad(b, (a,))
    assert str(excinfo.value) == (
        "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
        "passing an `inputs` parameter to .backward(). To resolve this error, you can either "
        "set use_reentrant=False, or call .backward() without passing the `inputs` argument."
    )
    c = lib.utils.checkpoint.checkpoint(lib.exp, a, use_reentrant=True).sum()
    c.backward()  # valid again once that pass is over
    assert lib.allclose(a.grad, a.exp())
    d = lib.utils.checkpoint.checkpoint(lib.exp, a, use_reentrant=False).sum()
    (g,) = lib.autograd.grad(d, (a,))
    assert lib.allclose(g, a.exp())


def test_argument_errors(lib):
    x = lib.randn(3, requires_grad=True)
    checkpoint = lib.utils.checkpoint.checkpoint
    with pytest.raises(ValueError, match="^Unexpected keyword arguments: y,z$"):
        checkpoint(lambda x, y, z: x, x, use_reentrant=True, y=1, z=2)
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        checkpoint(lib.sin, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        checkpoint(lib.sin, x, use_reentrant=False, determinism_check="strict")
    out = checkpoint(lambda x, y: x * y, x, use_reentrant=False, y=3.0)  # kwargs: fine
    out.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]


def test_reentrant_checkpoint_of_a_function_cut_from_the_graph(lib):
    a = lib.randn(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="none of output has requires_grad=True"):
        out = lib.utils.checkpoint.checkpoint(lambda x: x.detach() * 2, a, use_reentrant=True)
        (out + a).sum().backward()
    out = lib.utils.checkpoint.checkpoint(lambda x: x.detach() * 2, a, use_reentrant=False)
    (out + a).sum().backward()
    assert a.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


@VARIANTS
def test_dropout_recomputes_the_same_mask(lib, use_reentrant):
    x = lib.ones(64, 8, requires_grad=True)

    def fn(x):
        return lib.nn.functional.dropout(x, 0.5, training=True) * 3

    lib.manual_seed(0)
    out = lib.utils.checkpoint.checkpoint(fn, x, use_reentrant=use_reentrant)
    out.sum().backward()
    kept = out != 0
    assert lib.equal(x.grad, kept.to(x.dtype) * 6)  # the forward's mask, not a new one


def test_without_preserving_the_rng_state_the_mask_changes():
    x = dyngrad.ones(64, 8, requires_grad=True)
    out = dyngrad.utils.checkpoint.checkpoint(
        lambda x: dyngrad.nn.functional.dropout(x, 0.5),
        x,
        use_reentrant=False,
        preserve_rng_state=False,
    )
    out.sum().backward()
    assert not dyngrad.equal(x.grad, (out != 0).to(x.dtype) * 2)


def test_recomputes_once_per_backward_and_stops_early(lib):
    calls = []

    def fn(x):
        calls.append("run")
        y = x.sin()
        z = y.exp()
        calls.append("after the last save")
        return z

    a = lib.randn(3, requires_grad=True)
    out = lib.utils.checkpoint.checkpoint(fn, a, use_reentrant=False)
    assert calls == ["run", "after the last save"]
    out.sum().backward()
    assert calls == ["run", "after the last save", "run"]  # stopped once all were recomputed
    assert lib.allclose(a.grad, a.cos() * a.sin().exp())


def test_saved_values_read_outside_backward_recompute_each_time(lib):
    count = [0]

    def foo(a):
        count[0] += 1
        return lib.exp(a * a)

    a = lib.randn(5, requires_grad=True)
    d = lib.utils.checkpoint.checkpoint(foo, a, use_reentrant=False)
    d.grad_fn._saved_result
    d.grad_fn._saved_result
    assert count[0] == 3
    d.sum().backward()
    assert count[0] == 4
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        d.grad_fn._saved_result


def test_a_recomputed_tensor_is_handed_out_once_per_backward(lib):
    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            ctx.saved_tensors  # a second read
            return g * 2

    a = lib.randn(3, requires_grad=True)
    out = lib.utils.checkpoint.checkpoint(lambda x: Twice.apply(x * 1), a, use_reentrant=False)
    with pytest.raises(RuntimeError, match="Unpack is being triggered for a tensor that was"):
        out.sum().backward()


def test_an_input_modified_in_place_after_the_checkpoint_raises(lib):
    a = lib.randn(3, requires_grad=True)
    x = a * 2
    out = lib.utils.checkpoint.checkpoint(lambda t: t.sin(), x, use_reentrant=False)
    with lib.no_grad():
        x.add_(1)  # the recomputation would read the new values
    with pytest.raises(RuntimeError) as excinfo:
        out.sum().backward()
    assert str(excinfo.value).startswith(
        "one of the variables needed for gradient computation has been modified by an "
        "inplace operation: [torch.FloatTensor [3]], which is output 0 of Mul, is at version "
        "1; expected version 0 instead."
    )


def test_nested_checkpoints_recompute_outer_then_inner(lib):
    counter = [0]

    def inner(x):
        counter[0] += 1
        return x.sin().cos()

    def outer(x):
        counter[0] += 1
        return lib.utils.checkpoint.checkpoint(inner, x.exp(), use_reentrant=False).sin()

    a = lib.randn(3, requires_grad=True)
    expected = lib.autograd.grad(a.exp().sin().cos().sin().sum(), a)[0]
    out = lib.utils.checkpoint.checkpoint(outer, a, use_reentrant=False)
    assert counter[0] == 2
    (g,) = lib.autograd.grad(out.sum(), a)
    assert lib.allclose(g, expected)
    assert counter[0] == 5  # the outer once, then the inner twice (within it, and its own)


def test_non_determinism_is_detected(lib):
    checkpoint = lib.utils.checkpoint.checkpoint

    def two_paths(first, then):
        calls = [0]

        def fn(x):
            calls[0] += 1
            return first(x) if calls[0] == 1 else then(x)

        return fn

    def save_three(x):
        return x.sin().exp().sin()

    def save_two(x):
        return x.sin().exp()

    def save_two_other_shape(x):
        return x.sin() * lib.tensor([1.0, 2.0])

    a = lib.randn(1, requires_grad=True)
    with pytest.raises(RuntimeError) as excinfo:
        checkpoint(two_paths(save_three, save_two), a, use_reentrant=False).sum().backward()
    assert str(excinfo.value).startswith(
        "torch.utils.checkpoint: A different number of tensors was saved during the original "
        "forward and recomputation.\nNumber of tensors saved during forward: 3\nNumber of "
        "tensors saved during recomputation: 2.\n"
    )
    with lib.utils.checkpoint.set_checkpoint_early_stop(False):
        with pytest.raises(RuntimeError, match="trying to save more tensors during recomput"):
            checkpoint(two_paths(save_two, save_three), a, use_reentrant=False).backward()
    checkpoint(two_paths(save_two, save_three), a, use_reentrant=False).backward()  # stops
    with pytest.raises(RuntimeError) as excinfo:
        out = checkpoint(two_paths(save_two, save_two_other_shape), a, use_reentrant=False)
        out.sum().backward()
    assert str(excinfo.value).startswith(
        "torch.utils.checkpoint: Recomputed values for the following tensors have different "
        "metadata than during the forward pass.\ntensor at position 1:\nsaved metadata: "
        "{'shape': torch.Size([1]), 'dtype': torch.float32, 'device': device(type='cpu')}\n"
        "recomputed metadata: {'shape': torch.Size([2]), 'dtype': torch.float32, 'device': "
        "device(type='cpu')}\n"
    )
    out = checkpoint(
        two_paths(save_two, save_two_other_shape),
        a,
        use_reentrant=False,
        determinism_check="none",
    )
    out.sum().backward()  # unchecked


def test_debug_lists_what_each_run_saved_and_where(lib):
    calls = [0]

    def fn(x):
        calls[0] += 1
        return x.sin().exp() if calls[0] == 1 else x.sin() * lib.tensor([1.0, 2.0])

    a = lib.randn(1, requires_grad=True)
    with lib.utils.checkpoint.set_checkpoint_debug_enabled(True):
        out = lib.utils.checkpoint.checkpoint(fn, a, use_reentrant=False)
    with pytest.raises(RuntimeError) as excinfo:
        out.sum().backward()
    text = str(excinfo.value)
    assert "You are seeing this error because you passed `debug=True` to checkpoint" in text
    if lib is dyngrad:
        assert re.search(r"2\. ExpBackward0 saved a tensor \(1,\) torch.float32 at .*:\d+", text)
        assert "2. MulBackward0 saved a tensor (2,) torch.float32" in text
    calls[0] = 0
    with lib.utils.checkpoint.set_checkpoint_debug_enabled(False):  # overrides debug=True
        out = lib.utils.checkpoint.checkpoint(fn, a, use_reentrant=False, debug=True)
    with pytest.raises(RuntimeError) as excinfo:
        out.sum().backward()
    assert str(excinfo.value).startswith("torch.utils.checkpoint: Recomputed values")


def test_graph_exec_group_recomputes_once(lib):
    counter = [0]

    def fn(x):
        counter[0] += 1
        y = x.sin().cos()
        return y, y.sin().cos()

    x = lib.randn(3, 3, requires_grad=True)
    y, z = lib.utils.checkpoint.checkpoint(fn, x, use_reentrant=False)
    with lib.utils.checkpoint.GraphExecGroup():
        (gy,) = lib.autograd.grad(z, inputs=(y,), grad_outputs=(lib.ones(3, 3),))
        lib.autograd.grad(y, inputs=(x,), grad_outputs=(gy,))
    assert counter[0] == 2
    out = lib.utils.checkpoint.checkpoint(lambda x: x.sin().cos(), x, use_reentrant=False)
    with lib.utils.checkpoint.GraphExecGroup():
        out.sum().backward(retain_graph=True)
        with pytest.raises(RuntimeError, match="Performing two backward calls that overlap"):
            out.sum().backward()


@VARIANTS
def test_checkpoint_sequential_equals_the_plain_sequential(lib, use_reentrant):
    lib.manual_seed(0)
    model = lib.nn.Sequential(*[lib.nn.Linear(6, 6) for _ in range(4)]).double()
    x = lib.randn(5, 6, dtype=lib.float64, requires_grad=True)
    model(x).pow(2).sum().backward()
    expected = [p.grad.clone() for p in model.parameters()] + [x.grad.clone()]
    model.zero_grad()
    x.grad = None
    out = lib.utils.checkpoint.checkpoint_sequential(model, 2, x, use_reentrant=use_reentrant)
    out.pow(2).sum().backward()
    got = [p.grad for p in model.parameters()] + [x.grad]
    assert all(lib.allclose(g, e) for g, e in zip(got, expected))


def test_selective_checkpointing_is_not_supported():
    with pytest.raises(NotImplementedError, match="selective activation checkpointing"):
        dyngrad.utils.checkpoint.create_selective_checkpoint_contexts([])
    assert dyngrad.utils.checkpoint.CheckpointPolicy.MUST_SAVE.value == 0


def test_save_on_cpu_around_and_inside_a_checkpoint(lib):
    a = lib.randn(2, 2, requires_grad=True)
    a.pow(2).pow(2).pow(2).pow(2).sum().backward()
    expected = a.grad.clone()
    a.grad = None
    with lib.autograd.graph.save_on_cpu():
        h = lib.utils.checkpoint.checkpoint(
            lambda x: x.pow(2).pow(2), a.pow(2), use_reentrant=False
        )
        h.pow(2).sum().backward()
    assert lib.allclose(a.grad, expected)


# ---- what a checkpointed graph saves -------------------------------------------------------


def mlp(torch, checkpointed: bool):
    torch.manual_seed(0)
    layers = [torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU()) for _ in range(4)]
    x = torch.randn(32, 64, requires_grad=True)
    h = x
    for layer in layers:
        h = (
            torch.utils.checkpoint.checkpoint(layer, h, use_reentrant=False)
            if checkpointed
            else layer(h)
        )
    return h.sum(), layers, x


def test_a_checkpointed_mlp_saves_only_its_inputs():
    saved_bytes = dyngrad.autograd.graph.saved_bytes
    plain, _, _ = mlp(dyngrad, checkpointed=False)
    loss, layers, x = mlp(dyngrad, checkpointed=True)
    # each region keeps its input (32x64 float32); the plain graph also keeps every weight
    # and every ReLU output
    assert saved_bytes(loss) == 4 * 32 * 64 * 4
    assert saved_bytes(plain) > 2 * saved_bytes(loss)
    text = dyngrad.autograd.graph.describe(loss, detail=True)
    assert "(recomputed by checkpoint, keeps 1 tensor alive" in text
    loss.backward()
    expected_loss, plain_layers, plain_x = mlp(dyngrad, checkpointed=False)
    expected_loss.backward()
    for layer, plain_layer in zip(layers, plain_layers):
        assert dyngrad.allclose(layer[0].weight.grad, plain_layer[0].weight.grad)
    assert dyngrad.allclose(x.grad, plain_x.grad)


@VARIANTS
def test_the_doctor_watches_a_checkpointed_training_loop(use_reentrant):
    def train():
        dyngrad.manual_seed(0)
        model = dyngrad.nn.Sequential(
            dyngrad.nn.Linear(3, 8), dyngrad.nn.ReLU(), dyngrad.nn.Linear(8, 1)
        )
        opt = dyngrad.optim.SGD(model.parameters(), lr=0.1)
        x, y = dyngrad.randn(16, 3, requires_grad=True), dyngrad.randn(16, 1)
        for _ in range(3):
            opt.zero_grad()
            out = dyngrad.utils.checkpoint.checkpoint(model, x, use_reentrant=use_reentrant)
            loss = ((out - y) ** 2).mean()
            loss.backward()
            opt.step()
        return [p.detach().clone() for p in model.parameters()]

    plain = train()
    with dyngrad.doctor.watch() as report:
        watched = train()
    assert report.kinds() == []
    assert all(dyngrad.equal(a, b) for a, b in zip(plain, watched))


@VARIANTS
@pytest.mark.parametrize("enabled", [True, False])
def test_recomputation_runs_under_the_forwards_autocast_state(lib, use_reentrant, enabled):
    seen = []

    def fn(x, y):
        z = lib.mm(lib.mm(x, y), y)  # mm runs in bfloat16 under autocast
        seen.append(z.dtype)
        return z

    rng = np.random.default_rng(1)
    x, y = (lib.tensor(rng.standard_normal((3, 3)), requires_grad=True) for _ in range(2))
    x, y = x.float().detach().requires_grad_(), y.float().detach().requires_grad_()
    with lib.autocast(device_type="cpu", dtype=lib.bfloat16, enabled=enabled):
        out = lib.utils.checkpoint.checkpoint(fn, x, y, use_reentrant=use_reentrant)
        loss = out.float().sum()
    loss.backward()  # outside the region: recomputation must enter it again
    expected = lib.bfloat16 if enabled else lib.float32
    assert seen[0] == expected and all(d == expected for d in seen)
    assert x.grad.dtype == lib.float32 and y.grad.dtype == lib.float32
    if use_reentrant:
        assert len(seen) == 2  # the reentrant backward runs fn to its end


def test_early_stop_leaves_nothing_a_custom_function_saved_alive():
    # the recomputation stops inside the Function's save: what it was saving is not left on
    # its node in a cycle that only the cycle collector could free (dyngrad only: torch 2.13
    # keeps the forward's output alive here, which PyTorch's own test says it should not)
    import gc
    import weakref

    made = []

    class Keep(dyngrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.clone()
            ctx.save_for_backward(y)
            made.append(weakref.ref(y))
            return y

        @staticmethod
        def backward(ctx, g):
            ctx.saved_tensors
            return None

    def fn(x):
        return Keep.apply(x)

    def run(x):
        out = dyngrad.utils.checkpoint.checkpoint(fn, x, use_reentrant=False)
        out.sum().backward()

    enabled = gc.isenabled()
    gc.disable()
    try:
        run(dyngrad.randn(3, 3, requires_grad=True))
        assert len(made) == 2 and [r() for r in made] == [None, None]
    finally:
        if enabled:
            gc.enable()
