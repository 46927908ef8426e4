"""autocast's interface and semantics against torch: regions, nesting, the cast cache, the
dtypes of gradients, saved activations in low precision, deprecations, custom_fwd/bwd."""

from __future__ import annotations

import warnings

import pytest

import dyngrad
from dyngrad.autograd.graph import saved_bytes


def test_matmul_runs_in_bfloat16_and_grads_come_back_in_float32(lib):
    w = lib.nn.Parameter(lib.randn(3, 4))
    x = lib.randn(2, 3, requires_grad=True)
    with lib.autocast("cpu", dtype=lib.bfloat16):
        y = x @ w
        assert y.dtype == lib.bfloat16
        assert type(y.grad_fn.next_functions[1][0]).__name__ == "ToCopyBackward0"
        loss = y.float().pow(2).sum()
    loss.backward()
    assert w.grad.dtype == x.grad.dtype == lib.float32


def test_region_state_nesting_and_disabling(lib):
    assert not lib.is_autocast_enabled("cpu") and not lib.is_autocast_enabled()
    a = lib.ones(2, 2)
    with lib.autocast("cpu"):
        assert lib.is_autocast_enabled("cpu") and not lib.is_autocast_enabled()
        assert lib.get_autocast_dtype("cpu") == lib.bfloat16
        assert lib.get_autocast_dtype("cuda") == lib.float16
        with lib.autocast("cpu", enabled=False):
            assert not lib.is_autocast_enabled("cpu")
            assert (a @ a).dtype == lib.float32
            # an input already in bfloat16 meets float32 by ordinary promotion rules
            assert (a.bfloat16() @ a.bfloat16()).dtype == lib.bfloat16
        with lib.autocast("cpu", dtype=lib.float16):
            assert (a @ a).dtype == lib.float16
        assert (a @ a).dtype == lib.bfloat16
    assert not lib.is_autocast_enabled("cpu")
    assert (a @ a).dtype == lib.float32


def test_decorator_form(lib):
    @lib.autocast("cpu")
    def product(a, b):
        return a @ b

    assert product(lib.ones(2, 2), lib.ones(2, 2)).dtype == lib.bfloat16
    assert not lib.is_autocast_enabled("cpu")


def test_parameter_cast_once_per_region(lib):
    w = lib.nn.Parameter(lib.ones(3, 3))
    with lib.autocast("cpu"):
        a, b = w @ w, lib.ones(3, 3) @ w
        assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[1][0]
        with lib.no_grad():
            w @ w  # a cast made without grad is not cached
        c = w @ w
        assert c.requires_grad and c.grad_fn.next_functions[0][0] is a.grad_fn.next_functions[0][0]
        with lib.autocast("cpu", dtype=lib.float16):
            assert (w @ w).dtype == lib.bfloat16  # PyTorch's cache is keyed by tensor alone
    with lib.autocast("cpu", cache_enabled=False):
        a, b = w @ w, w @ w
        assert a.grad_fn.next_functions[0][0] is not b.grad_fn.next_functions[0][0]
    with lib.autocast("cpu"):
        d = w @ w
    assert d.grad_fn.next_functions[0][0] is not a.grad_fn.next_functions[0][0]


def test_float64_is_never_cast_and_promote_ops(lib):
    d = lib.ones(2, 2, dtype=lib.float64)
    low, f32 = lib.ones(2, dtype=lib.bfloat16), lib.ones(2)
    with lib.autocast("cpu"):
        assert (d @ d).dtype == lib.float64
        assert lib.cat([low, f32]).dtype == lib.float32
        assert lib.stack([low, f32]).dtype == lib.float32
        assert lib.cat([low, lib.ones(2, dtype=lib.float64)]).dtype == lib.float64
        dest = lib.zeros(3, 2, dtype=lib.bfloat16)
        assert dest.index_copy(0, lib.tensor([0]), lib.ones(1, 2)).dtype == lib.float32
        with pytest.raises(RuntimeError, match="Unexpected floating ScalarType in at::autocast"):
            lib.cat([low, lib.ones(2, dtype=lib.float16)])


def test_matmul_casts_at_its_entry_but_mv_and_dot_do_not(lib):
    m, v = lib.ones(2, 2), lib.ones(2)
    with lib.autocast("cpu"):
        assert (v @ v).dtype == (m @ v).dtype == (v @ m).dtype == lib.bfloat16
        assert lib.mv(m, v).dtype == lib.dot(v, v).dtype == lib.float32
        assert lib.mm(m.bfloat16(), m).dtype == lib.bfloat16  # cast before mm's dtype check


def test_layers_and_losses(lib):
    lib.manual_seed(0)
    lin, conv = lib.nn.Linear(4, 3), lib.nn.Conv1d(2, 3, 3)
    with lib.autocast("cpu"):
        out = lin(lib.randn(5, 4))
        assert out.dtype == lib.bfloat16
        assert conv(lib.randn(1, 2, 6)).dtype == lib.bfloat16
        assert lib.nn.functional.prelu(lib.randn(2, 3), lib.ones(1)).dtype == lib.bfloat16
        q = lib.randn(1, 2, 4, 8)
        assert lib.nn.functional.scaled_dot_product_attention(q, q, q).dtype == lib.bfloat16
        loss = lib.nn.functional.cross_entropy(out, lib.tensor([0, 1, 2, 0, 1]))
        assert loss.dtype == lib.float32
        assert lib.nn.functional.mse_loss(out, out.detach()).dtype == lib.float32
        assert lib.nn.functional.l1_loss(out, out.detach()).dtype == lib.float32
        assert out.softmax(-1).dtype == lib.bfloat16  # not on the CPU float32 list
    loss.backward()
    assert lin.weight.grad.dtype == lin.bias.grad.dtype == lib.float32


def test_saved_activations_are_halved():
    model = dyngrad.nn.Sequential(
        dyngrad.nn.Linear(64, 64), dyngrad.nn.GELU(), dyngrad.nn.Linear(64, 64)
    )
    x = dyngrad.randn(32, 64)
    full = saved_bytes(model(x).sum())
    with dyngrad.autocast("cpu"):
        low = saved_bytes(model(x).float().sum())
    assert low == full // 2


def test_backward_inside_the_region(lib):
    w = lib.nn.Parameter(lib.randn(3, 3))
    with lib.autocast("cpu"):
        (lib.ones(2, 3) @ w).float().sum().backward()
    assert w.grad.dtype == lib.float32


def test_deprecated_spellings_and_cuda_without_cuda(lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        region = lib.cuda.amp.autocast()
        with region:
            assert not lib.is_autocast_enabled("cuda")
        cpu_region = lib.cpu.amp.autocast()
        with cpu_region:
            assert lib.is_autocast_enabled("cpu")
        lib.autocast("cpu", dtype=lib.float32)
    messages = [(w.category, str(w.message)) for w in caught]
    assert (
        FutureWarning,
        "`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
        "`torch.amp.autocast('cuda', args...)` instead.",
    ) in messages
    assert (
        UserWarning,
        "CUDA is not available or torch_xla is imported. Disabling autocast.",
    ) in messages
    assert (
        FutureWarning,
        "`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
        "`torch.amp.autocast('cpu', args...)` instead.",
    ) in messages
    assert any(
        m.startswith("In CPU autocast, but the target dtype is not supported") for _, m in messages
    )
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        lib.autocast(0)


def _scaled_function(lib, cast_inputs):
    class Square(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", cast_inputs=cast_inputs)
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            ctx.inner = lib.is_autocast_enabled("cpu")
            return x @ w

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            ctx.backward_enabled = lib.is_autocast_enabled("cpu")
            return g @ w.t(), x.t() @ g

    return Square


@pytest.mark.parametrize("cast_inputs", [None, "float32"])
def test_custom_fwd_and_bwd(lib, cast_inputs):
    fn = _scaled_function(lib, None if cast_inputs is None else lib.float32)
    x = lib.randn(2, 3, requires_grad=True)
    w = lib.randn(3, 3, requires_grad=True)
    with lib.autocast("cpu"):
        y = fn.apply(x, w)
        ctx = y.grad_fn
    y.float().sum().backward()
    if cast_inputs is None:
        assert y.dtype == lib.bfloat16 and ctx.inner and ctx.backward_enabled
    else:
        assert y.dtype == lib.float32 and not ctx.inner and not ctx.backward_enabled
    assert x.grad.dtype == w.grad.dtype == lib.float32
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        lib.amp.custom_fwd(device_type=None)


def test_describe_marks_the_casts_autocast_made():
    from dyngrad.autograd.graph import describe

    layer = dyngrad.nn.Linear(3, 2)
    with dyngrad.autocast("cpu"):
        y = layer(dyngrad.randn(4, 3)).float().sum()
    text = describe(y, detail=True)
    assert "AddmmBackward0 -> (4, 2) bfloat16" in text
    assert text.count("[autocast: bfloat16]") == 2


def test_describe_marks_the_nodes_an_autocast_region_recorded():
    import dyngrad
    from dyngrad.autograd.graph import describe

    layer = dyngrad.nn.Linear(3, 2)
    with dyngrad.autocast("cpu", dtype=dyngrad.bfloat16):
        y = layer(dyngrad.randn(4, 3)).relu().sum()
    z = y.float() * 2  # outside the region: not marked
    lines = describe(z, detail=True).splitlines()
    marked = {word for line in lines if "[under autocast]" in line for word in line.split()}
    assert {"SumBackward0", "ReluBackward0", "AddmmBackward0", "TBackward0"} <= marked
    assert not any("MulBackward0" in line and "autocast" in line for line in lines)
    assert any("ToCopyBackward0" in line and "[autocast: bfloat16]" in line for line in lines)
