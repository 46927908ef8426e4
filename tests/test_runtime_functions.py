"""Small top-level functions real programs call: inter-op threads, flush-denormal, storages,
the deprecated autocast functions, DLPack, torch.fill, the in-place and feature dropouts,
constant_pad_nd, convolution, conv_tbc, embedding_renorm_ and the native_* entry points."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import dyngrad


def test_interop_threads_can_be_set_once_as_torch():
    # a fresh process for each library: the setting is once per process
    code = """
import {lib} as torch
assert torch.get_num_interop_threads() >= 1
torch.init_num_threads()
for bad, message in (("a", "expects an int, but got str"), (0, "expects a positive integer")):
    try:
        torch.set_num_interop_threads(bad)
    except RuntimeError as e:
        assert message in str(e), str(e)
torch.set_num_interop_threads(2)
assert torch.get_num_interop_threads() == 2
try:
    torch.set_num_interop_threads(3)
except RuntimeError as e:
    assert str(e).startswith("Error: cannot set number of interop threads after parallel"), e
else:
    raise AssertionError("no error")
"""
    libs = ["dyngrad"] + (["torch"] if _has_torch() else [])
    for lib in libs:
        done = subprocess.run([sys.executable, "-c", code.format(lib=lib)], capture_output=True)
        assert done.returncode == 0, (lib, done.stderr.decode()[-2000:])


def _has_torch() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def test_set_flush_denormal_answers_as_a_cpu_without_it():
    assert dyngrad.set_flush_denormal(False) is True
    assert dyngrad.set_flush_denormal(True) is False
    assert np.float32(1e-40) * np.float32(1) != 0  # and NumPy keeps denormals


def test_is_storage(lib):
    t = lib.ones(2)
    assert lib.is_storage(t.untyped_storage()) and not lib.is_storage(t)
    assert not lib.is_storage(3)


LEGACY = [
    ("is_autocast_cpu_enabled", (), "torch.is_autocast_cpu_enabled() is deprecated"),
    ("get_autocast_cpu_dtype", (), "torch.get_autocast_cpu_dtype() is deprecated"),
    ("get_autocast_gpu_dtype", (), "torch.get_autocast_gpu_dtype() is deprecated"),
]


@pytest.mark.parametrize("name,args,message", LEGACY)
def test_legacy_autocast_getters_warn_as_torch(lib, name, args, message):
    with pytest.warns(DeprecationWarning, match=message.replace("(", r"\(").replace(")", r"\)")):
        getattr(lib, name)(*args)


def test_legacy_autocast_setters_map_to_the_device_state(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert lib.get_autocast_cpu_dtype() == lib.bfloat16
        assert lib.get_autocast_gpu_dtype() == lib.float16
        lib.set_autocast_cpu_enabled(True)
        try:
            assert lib.is_autocast_enabled("cpu") and lib.is_autocast_cpu_enabled()
        finally:
            lib.set_autocast_cpu_enabled(False)
        lib.set_autocast_cpu_dtype(lib.float16)
        try:
            assert lib.get_autocast_dtype("cpu") == lib.float16
        finally:
            lib.set_autocast_cpu_dtype(lib.bfloat16)
        lib.set_autocast_gpu_dtype(lib.bfloat16)
        try:
            assert lib.get_autocast_dtype("cuda") == lib.bfloat16
        finally:
            lib.set_autocast_gpu_dtype(lib.float16)
    with pytest.warns(DeprecationWarning, match="set_autocast_cpu_enabled"):
        lib.set_autocast_cpu_enabled(False)


def test_autocast_nesting_counters(lib):
    assert lib.autocast_increment_nesting() == 1
    assert lib.autocast_increment_nesting() == 2
    assert lib.autocast_decrement_nesting() == 1
    assert lib.autocast_decrement_nesting() == 0


def test_dlpack_shares_memory_and_capsules_are_used_once(lib):
    a = np.arange(3.0)
    t = lib.from_dlpack(a)
    t[0] = 7.0
    assert a[0] == 7.0 and t.dtype == lib.float64
    capsule = lib.to_dlpack(lib.arange(4))
    assert lib.from_dlpack(capsule).tolist() == [0, 1, 2, 3]
    with pytest.raises(RuntimeError, match="from_dlpack received an invalid capsule"):
        lib.from_dlpack(capsule)
    assert lib.from_dlpack(lib.to_dlpack(lib.ones(2, requires_grad=True))).tolist() == [1.0, 1.0]
    assert lib.utils.dlpack.from_dlpack is lib.from_dlpack


def test_from_dlpack_takes_a_torch_tensor(torch):
    source = torch.arange(6.0).reshape(2, 3)
    t = dyngrad.from_dlpack(source)
    source[0, 0] = 9.0
    assert t.tolist() == [[9.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_fill_as_torch(lib):
    x = lib.ones(3, requires_grad=True)
    y = lib.fill(x, 2.0)
    assert y.tolist() == [2.0] * 3 and y.grad_fn.name() == "FillBackward0"
    v = lib.tensor(3.0, requires_grad=True)
    y = lib.fill(x, v)
    assert y.grad_fn.name() == "FillBackward1"
    (y * lib.arange(3.0)).sum().backward()
    assert v.grad.item() == 3.0 and x.grad.tolist() == [0.0] * 3
    assert lib.fill(lib.ones(2, dtype=lib.int64), 2.7).tolist() == [2, 2]
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor"):
        lib.fill(x, lib.ones(2))


def test_dropouts_draw_as_torch(lib):
    lib.manual_seed(1)
    assert lib.feature_dropout(lib.ones(2, 4, 3), 0.5, True)[:, :, 0].tolist() == [
        [2.0, 2.0, 2.0, 2.0],
        [0.0, 2.0, 2.0, 0.0],
    ]
    lib.manual_seed(1)
    z = lib.ones(2, 4, 3)
    assert lib.feature_dropout_(z, 0.5, True) is z and z[1, :, 1].tolist() == [0.0, 2.0, 2.0, 0.0]
    lib.manual_seed(2)
    z = lib.ones(6)
    assert lib.dropout_(z, 0.5, True) is z and z.tolist() == [0.0, 2.0, 0.0, 0.0, 0.0, 0.0]
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions"):
        lib.feature_dropout(lib.ones(3), 0.5, True)


def test_native_dropout_as_torch(lib):
    lib.manual_seed(0)
    x = lib.randn(3, 4, requires_grad=True)
    out, mask = lib.native_dropout(x, 0.3, True)
    assert mask.dtype == lib.bool and out.grad_fn.name() == "NativeDropoutBackward0"
    assert mask.int().tolist() == [[1, 1, 1, 1], [1, 1, 1, 0], [1, 1, 1, 1]]
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), mask.numpy() / 0.7, rtol=1e-6)
    out, mask = lib.native_dropout(x, 0.3, False)
    assert bool(mask.all()) and lib.equal(out, x)


def test_native_channel_shuffle_as_torch(lib):
    x = lib.arange(8.0).reshape(1, 4, 2).requires_grad_()
    y = lib.native_channel_shuffle(x, 2)
    assert y.tolist() == [[[0.0, 1.0], [4.0, 5.0], [2.0, 3.0], [6.0, 7.0]]]
    assert y.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::native_channel_shuffle"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="channel_shuffle expects input with > 2 dims"):
        lib.native_channel_shuffle(lib.ones(2, 4), 2)


def test_constant_pad_nd_as_torch(lib):
    x = lib.ones(2, 3, requires_grad=True)
    y = lib.constant_pad_nd(x, (1, 2), 5.0)
    assert y.shape == (2, 6) and y[0].tolist() == [5.0, 1.0, 1.0, 1.0, 5.0, 5.0]
    assert y.grad_fn.name() == "ConstantPadNdBackward0"
    with pytest.raises(RuntimeError, match="Length of pad must be even but instead it equals 1"):
        lib.constant_pad_nd(x, (1,))


@pytest.mark.parametrize("transposed", [False, True])
def test_convolution_matches_torch(transposed, torch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 7))
    w = rng.standard_normal((4, 3, 3) if transposed else (6, 2, 3))
    b = rng.standard_normal(6 if transposed else 6)
    args = ((2,), (1,), (1,), transposed, (1,) if transposed else (0,), 2)
    results = []
    for lib in (dyngrad, torch):
        tx, tw, tb = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
        y = lib.convolution(tx, tw, tb, *args)
        assert y.grad_fn.name() == "ConvolutionBackward0"
        y.sin().sum().backward()
        results.append([y.detach().numpy(), tx.grad.numpy(), tw.grad.numpy(), tb.grad.numpy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_conv_tbc_matches_torch(torch):
    rng = np.random.default_rng(1)
    arrays = rng.standard_normal((5, 2, 3)), rng.standard_normal((2, 3, 4)), rng.standard_normal(4)
    results = []
    for lib in (dyngrad, torch):
        x, w, b = (lib.tensor(a, requires_grad=True) for a in arrays)
        y = lib.conv_tbc(x, w, b, 1)
        y.sin().sum().backward()
        results.append([y.detach().numpy(), x.grad.numpy(), w.grad.numpy(), b.grad.numpy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_embedding_renorm_as_torch(lib):
    w = lib.ones(4, 3) * 3
    assert lib.embedding_renorm_(w, lib.tensor([0, 1, 1]), 1.0, 2.0) is w
    np.testing.assert_allclose(w[:2].numpy(), np.full((2, 3), 3 / (np.sqrt(27) + 1e-7)), rtol=1e-6)
    assert w[2:].tolist() == [[3.0] * 3] * 2 and w._version == 1


def test_native_norms_return_torchs_tuples(torch):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 6, 5))
    calls = [
        lambda t, x: t.native_layer_norm(x, (5,), t.ones(5, dtype=t.float64), None, 1e-5),
        lambda t, x: t.native_batch_norm(x, None, None, t.zeros(6, dtype=t.float64),
                                         t.ones(6, dtype=t.float64), True, 0.1, 1e-5),
        lambda t, x: t.native_batch_norm(x, None, None, t.zeros(6, dtype=t.float64),
                                         t.ones(6, dtype=t.float64), False, 0.1, 1e-5),
        lambda t, x: t.native_group_norm(x, None, None, 4, 6, 5, 3, 1e-5),
    ]  # fmt: skip
    for call in calls:
        ours = call(dyngrad, dyngrad.tensor(x, requires_grad=True))
        theirs = call(torch, torch.tensor(x, requires_grad=True))
        assert len(ours) == len(theirs) == 3
        assert ours[0].grad_fn.name() == theirs[0].grad_fn.name()
        for a, b in zip(ours, theirs):
            assert tuple(a.shape) == tuple(b.shape)
            np.testing.assert_allclose(
                a.detach().numpy(), b.detach().numpy(), rtol=1e-9, atol=1e-12
            )


def test_tensor_dlpack_protocol_shares_memory_with_numpy_and_torch(torch):
    t = dyngrad.arange(6.0).reshape(2, 3)
    np.from_dlpack(t)[0, 0] = 9.0
    theirs = torch.from_dlpack(t)
    assert t[0, 0].item() == 9.0 and theirs.tolist() == t.tolist()
    assert t.__dlpack_device__() == (1, 0)
    assert np.from_dlpack(dyngrad.ones(1, 3).expand(2, 3)).shape == (2, 3)
    for lib in (dyngrad, torch):
        with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
            np.from_dlpack(lib.ones(2, requires_grad=True))
