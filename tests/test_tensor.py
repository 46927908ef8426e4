"""Tensor basics: creation, dtypes, device, conversions, repr, operators, basic indexing.

Most tests take `lib` and run twice: on dyngrad and on the real torch (skipped without it),
so every literal expected value below is checked to be PyTorch's.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import dyngrad


@pytest.fixture(params=["dyngrad", "torch"])
def lib(request):
    """dyngrad, then the real torch: the same assertions prove dyngrad matches PyTorch."""
    if request.param == "torch":
        return pytest.importorskip("torch")
    return dyngrad


def dtype_name(t) -> str:
    return str(t.dtype).replace("torch.", "")


# ---- creation and dtype inference ----------------------------------------------------------


@pytest.mark.parametrize(
    "data,dtype",
    [
        ([1, 2], "int64"),
        ([1.0, 2], "float32"),
        (3.5, "float32"),
        ([True, False], "bool"),
        ([True, 2], "int64"),
        ([[1, 2.5]], "float32"),
        ([], "float32"),
        ([1 + 2j], "complex64"),
        (np.array([1.0, 2.0]), "float64"),
        (np.array([1.0], dtype=np.float32), "float32"),
        (np.array([1, 2], dtype=np.int32), "int32"),
        (np.float64(1.5), "float64"),
        ([np.float64(1.5)], "float64"),
        ([1.5, np.float64(2.0)], "float64"),
        ([np.float32(1.5), 2.5], "float32"),
        ([np.int32(1)], "int32"),
        ([np.int32(1), 2], "int64"),
        ([1, np.float32(2.0)], "float32"),
        ([1 + 2j, np.float64(1.0)], "complex128"),
        ((1, 2), "int64"),
    ],
)
def test_tensor_infers_dtype_as_pytorch(lib, data, dtype):
    assert dtype_name(lib.tensor(data)) == dtype


def test_tensor_with_a_dtype_keeps_python_float_precision(lib):
    # regression: Python floats went through float32 before reaching a float64 tensor
    assert lib.tensor([0.1], dtype=lib.float64).item() == 0.1
    assert lib.as_tensor([[0.1, 1]], dtype=lib.float64).tolist() == [[0.1, 1.0]]
    assert lib.tensor(0.1, dtype=lib.float64).item() == 0.1


def test_tensor_of_one_element_tensors_takes_their_dtype(lib):
    t = lib.tensor([lib.tensor(1.0, dtype=lib.float64), lib.tensor(2.0, dtype=lib.float64)])
    assert (t.dtype, t.tolist()) == (lib.float64, [1.0, 2.0])


def test_tensor_with_dtype_casts(lib):
    assert lib.tensor([1.7, -1.7], dtype=lib.int32).tolist() == [1, -1]
    assert lib.tensor([1, 2], dtype=lib.float64).dtype == lib.float64


def test_tensor_copies_but_as_tensor_and_from_numpy_share_memory(lib):
    a = np.arange(4.0)
    copied, shared, same = lib.tensor(a), lib.as_tensor(a), lib.from_numpy(a)
    a[0] = 9.0
    assert (copied[0].item(), shared[0].item(), same[0].item()) == (0.0, 9.0, 9.0)
    same[1] = 7.0
    assert a[1] == 7.0


def test_as_tensor_with_another_dtype_copies(lib):
    a = np.arange(3.0)
    t = lib.as_tensor(a, dtype=lib.float32)
    a[0] = 5.0
    assert (t.dtype, t[0].item()) == (lib.float32, 0.0)


def test_as_tensor_returns_the_tensor_itself(lib):
    t = lib.ones(2)
    assert lib.as_tensor(t) is t


def test_from_numpy_rejects_other_objects(lib):
    with pytest.raises(TypeError, match=re.escape("expected np.ndarray (got list)")):
        lib.from_numpy([1, 2])


def test_tensor_rejects_ragged_lists(lib):
    with pytest.raises(
        ValueError, match=re.escape("expected sequence of length 2 at dim 1 (got 1)")
    ):
        lib.tensor([[1, 2], [3]])


def test_tensor_from_a_tensor_warns_and_copies(lib):
    src = lib.tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        t = lib.tensor(src)
    t[0] = 5.0
    assert src.tolist() == [1.0, 2.0]


@pytest.mark.parametrize(
    "make,dtype,shape,values",
    [
        (lambda lib: lib.zeros(2, 3), "float32", (2, 3), [[0.0] * 3] * 2),
        (lambda lib: lib.zeros((2, 1)), "float32", (2, 1), [[0.0], [0.0]]),
        (lambda lib: lib.zeros([2]), "float32", (2,), [0.0, 0.0]),
        (lambda lib: lib.zeros(()), "float32", (), 0.0),
        (lambda lib: lib.ones(2, dtype=lib.int32), "int32", (2,), [1, 1]),
        (lambda lib: lib.full((2,), 3), "int64", (2,), [3, 3]),
        (lambda lib: lib.full((2,), 3.0), "float32", (2,), [3.0, 3.0]),
        (lambda lib: lib.full((2,), True), "bool", (2,), [True, True]),
        (lambda lib: lib.full([2], 1.5, dtype=lib.float64), "float64", (2,), [1.5, 1.5]),
        (lambda lib: lib.empty(2, 3).zero_(), "float32", (2, 3), [[0.0] * 3] * 2),
        (lambda lib: lib.eye(2), "float32", (2, 2), [[1.0, 0.0], [0.0, 1.0]]),
        (lambda lib: lib.eye(2, 3, dtype=lib.int64), "int64", (2, 3), [[1, 0, 0], [0, 1, 0]]),
    ],
)
def test_filled_creation(lib, make, dtype, shape, values):
    t = make(lib)
    assert (dtype_name(t), tuple(t.shape), t.tolist()) == (dtype, shape, values)
    assert t.is_leaf and not t.requires_grad and t.grad_fn is None


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda lib: lib.zeros(-1), "zeros: Dimension size must be non-negative."),
        (
            lambda lib: lib.ones(2, -3),
            "Trying to create tensor with negative dimension -3: [2, -3]",
        ),
        (lambda lib: lib.empty(-1), "Trying to create tensor with negative dimension -1: [-1]"),
        (lambda lib: lib.randn(-1), "Trying to create tensor with negative dimension -1: [-1]"),
    ],
)
def test_negative_sizes_raise(lib, make, message):
    with pytest.raises(RuntimeError, match=re.escape(message)):
        make(lib)


@pytest.mark.parametrize(
    "make,dtype,values",
    [
        (lambda lib: lib.arange(5), "int64", [0, 1, 2, 3, 4]),
        (lambda lib: lib.arange(1, 4), "int64", [1, 2, 3]),
        (lambda lib: lib.arange(0, 10, 3), "int64", [0, 3, 6, 9]),
        (lambda lib: lib.arange(10, 0, -3), "int64", [10, 7, 4, 1]),
        (lambda lib: lib.arange(5.0), "float32", [0.0, 1.0, 2.0, 3.0, 4.0]),
        (lambda lib: lib.arange(0, 1, 0.25), "float32", [0.0, 0.25, 0.5, 0.75]),
        (lambda lib: lib.arange(3, dtype=lib.float64), "float64", [0.0, 1.0, 2.0]),
        (lambda lib: lib.linspace(0, 1, 5), "float32", [0.0, 0.25, 0.5, 0.75, 1.0]),
        (lambda lib: lib.linspace(-1, 1, 3), "float32", [-1.0, 0.0, 1.0]),
        (lambda lib: lib.linspace(0, 1, 1), "float32", [0.0]),
        (lambda lib: lib.linspace(0, 10, 4, dtype=lib.int64), "int64", [0, 3, 6, 10]),
    ],
)
def test_ranges(lib, make, dtype, values):
    t = make(lib)
    assert dtype_name(t) == dtype
    np.testing.assert_allclose(t.tolist(), values, rtol=1e-6)


def test_arange_counts_float_steps_as_pytorch(lib):
    assert lib.arange(0, 1, 0.1).shape == (10,)
    np.testing.assert_allclose(lib.arange(1.0, 2.0, 0.3).tolist(), [1.0, 1.3, 1.6, 1.9], rtol=1e-6)


@pytest.mark.parametrize(
    "args,message",
    [
        ((0, 1, 0), "step must be nonzero"),
        ((1, 0), "upper bound and lower bound inconsistent with step sign"),
        ((0.0, 1.0, -0.5), "upper bound and lower bound inconsistent with step sign"),
    ],
)
def test_arange_errors(lib, args, message):
    with pytest.raises(RuntimeError, match=re.escape(message)):
        lib.arange(*args)


@pytest.mark.parametrize("name,fill", [("zeros_like", 0), ("ones_like", 1), ("full_like", 7)])
def test_like_forms_keep_shape_and_dtype(lib, name, fill):
    x = lib.ones(2, 3, dtype=lib.float64)
    args = (x, fill) if name == "full_like" else (x,)
    t = getattr(lib, name)(*args)
    assert (t.dtype, tuple(t.shape), t.tolist()) == (lib.float64, (2, 3), [[float(fill)] * 3] * 2)
    assert getattr(lib, name)(*args, dtype=lib.int32).dtype == lib.int32


def test_empty_like_and_random_like_forms(lib):
    x = lib.ones(2, 3, dtype=lib.float64)
    assert lib.empty_like(x).shape == (2, 3)
    assert lib.rand_like(x).dtype == lib.float64
    assert lib.randn_like(x).shape == (2, 3)
    ints = lib.randint_like(lib.ones(50, dtype=lib.int64), 3, 10)
    assert ints.dtype == lib.int64 and 3 <= ints.min().item() and ints.max().item() < 10


def test_random_creation_ranges_and_dtypes(lib):
    lib.manual_seed(0)
    u = lib.rand(1000)
    assert u.dtype == lib.float32 and 0.0 <= u.min().item() and u.max().item() < 1.0
    assert 0.4 < u.mean().item() < 0.6
    n = lib.randn(4000, dtype=lib.float64)
    assert (
        n.dtype == lib.float64 and abs(n.mean().item()) < 0.1 and 0.9 < (n * n).mean().item() < 1.1
    )
    r = lib.randint(0, 5, (100,))
    assert r.dtype == lib.int64 and set(r.tolist()) == {0, 1, 2, 3, 4}
    assert lib.randint(5, (3,)).shape == (3,)
    p = lib.randperm(6)
    assert p.dtype == lib.int64 and sorted(p.tolist()) == list(range(6))
    assert lib.randperm(3, dtype=lib.float32).dtype == lib.float32
    assert lib.randn(2, requires_grad=True).requires_grad


@pytest.mark.parametrize(
    "name,kernel", [("rand", "check_uniform_bounds"), ("randn", "normal_kernel_cpu")]
)
@pytest.mark.parametrize("dtype,legacy", [("int64", "Long"), ("int32", "Int"), ("bool", "Bool")])
def test_float_random_refuses_integer_dtypes(lib, name, kernel, dtype, legacy):
    with pytest.raises(
        NotImplementedError, match=re.escape(f"\"{kernel}\" not implemented for '{legacy}'")
    ):
        getattr(lib, name)(2, dtype=getattr(lib, dtype))


def test_randint_needs_low_below_high(lib):
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        lib.randint(5, 2, (3,))


def test_manual_seed_and_generators_replay_streams(lib):
    lib.manual_seed(5)
    first = lib.randn(3).tolist()
    lib.manual_seed(5)
    assert lib.randn(3).tolist() == first
    assert lib.initial_seed() == 5
    assert isinstance(lib.manual_seed(1), lib.Generator)
    g = lib.Generator().manual_seed(3)
    a = lib.rand(3, generator=g).tolist()
    g.manual_seed(3)
    assert lib.rand(3, generator=g).tolist() == a
    assert g.initial_seed() == 3


def test_generator_state_round_trips(lib):
    g = lib.Generator()
    state = g.get_state()
    a = lib.rand(2, generator=g).tolist()
    g.set_state(state)
    assert lib.rand(2, generator=g).tolist() == a
    assert state.dtype == lib.uint8


def test_a_generator_does_not_touch_the_default_stream(lib):
    lib.manual_seed(7)
    expected = lib.rand(2).tolist()
    lib.manual_seed(7)
    lib.rand(5, generator=lib.Generator().manual_seed(1))
    assert lib.rand(2).tolist() == expected


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.zeros(2, dtype=lib.int64, requires_grad=True),
        lambda lib: lib.tensor([1, 2], requires_grad=True),
        lambda lib: lib.ones(2, dtype=lib.bool, requires_grad=True),
    ],
)
def test_integer_tensors_cannot_be_created_requiring_grad(lib, make):
    with pytest.raises(
        RuntimeError,
        match=re.escape("Only Tensors of floating point and complex dtype can require gradients"),
    ):
        make(lib)


def test_created_tensors_record_no_history_even_in_grad_mode(lib):
    for t in (lib.randn(3), lib.zeros(2), lib.arange(3.0), lib.tensor([1.0])):
        assert (t.is_leaf, t.requires_grad, t.grad_fn) == (True, False, None)


# ---- dtypes and the default dtype --------------------------------------------------------


def test_dtype_objects(lib):
    assert (lib.float, lib.double, lib.half, lib.long, lib.int, lib.short) == (
        lib.float32,
        lib.float64,
        lib.float16,
        lib.int64,
        lib.int32,
        lib.int16,
    )
    assert [repr(d) for d in (lib.float32, lib.bfloat16, lib.uint8, lib.int8, lib.bool)] == [
        "torch.float32",
        "torch.bfloat16",
        "torch.uint8",
        "torch.int8",
        "torch.bool",
    ]
    assert str(lib.int64) == "torch.int64"
    assert lib.float32.is_floating_point and not lib.int64.is_floating_point
    assert lib.complex64.is_complex and not lib.float64.is_complex
    assert lib.int8.is_signed and not lib.uint8.is_signed
    assert (lib.float32.itemsize, lib.float64.itemsize, lib.bfloat16.itemsize) == (4, 8, 2)


@pytest.mark.parametrize(
    "a,b,result",
    [
        ("int32", "float16", "float16"),
        ("uint8", "int8", "int16"),
        ("bfloat16", "float16", "float32"),
        ("bool", "int8", "int8"),
        ("int64", "float32", "float32"),
        ("float64", "complex64", "complex128"),
        ("float32", "float64", "float64"),
        ("bfloat16", "int64", "bfloat16"),
    ],
)
def test_promote_types(lib, a, b, result):
    assert lib.promote_types(getattr(lib, a), getattr(lib, b)) == getattr(lib, result)


def test_can_cast(lib):
    assert not lib.can_cast(lib.float32, lib.int32)
    assert lib.can_cast(lib.int32, lib.float32)
    assert not lib.can_cast(lib.int64, lib.bool)


def test_default_dtype_drives_float_creation(lib):
    assert lib.get_default_dtype() == lib.float32
    lib.set_default_dtype(lib.float64)
    try:
        assert lib.get_default_dtype() == lib.float64
        assert [
            t.dtype
            for t in (
                lib.tensor([1.5]),
                lib.ones(2),
                lib.arange(3.0),
                lib.rand(1),
                lib.tensor([1, 2]) * 1.5,
            )
        ] == [lib.float64] * 5
        assert lib.tensor([1]).dtype == lib.int64
        assert lib.tensor([1j]).dtype == lib.complex128
    finally:
        lib.set_default_dtype(lib.float32)
    assert lib.tensor([1.5]).dtype == lib.float32


def test_default_dtype_must_be_floating(lib):
    with pytest.raises(
        TypeError, match="only floating-point types are supported as the default type"
    ):
        lib.set_default_dtype(lib.int32)


# ---- device ---------------------------------------------------------------------------------


def test_device_objects(lib):
    t = lib.ones(1)
    assert str(t.device) == "cpu" and repr(t.device) == "device(type='cpu')"
    assert t.device == lib.device("cpu") and t.device.type == "cpu" and t.device.index is None
    assert t.device != "cpu"  # a device never equals a string, in PyTorch too
    assert repr(lib.device("cuda", 0)) == "device(type='cuda', index=0)"
    assert str(lib.device("cuda:1")) == "cuda:1" and lib.device("cuda:1").index == 1
    assert lib.ones(2, device="cpu").tolist() == [1.0, 1.0]
    assert lib.ones(2).to("cpu").device.type == "cpu"
    assert t.is_cpu and not t.is_cuda


def test_unknown_device_raises(lib):
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        lib.device("foo")


# ---- shape facts and conversions -----------------------------------------------------------


def test_shape_size_dim_numel(lib):
    t = lib.zeros(2, 3)
    assert (t.shape, t.size(), t.size(0), t.size(-1)) == ((2, 3), (2, 3), 2, 3)
    assert type(t.shape).__name__ == "Size" and t.shape == lib.Size([2, 3])
    assert (t.dim(), t.ndim, t.numel(), len(t), list(t.shape), t.shape[1]) == (
        2,
        2,
        6,
        2,
        [2, 3],
        3,
    )
    assert repr(t.shape) == "torch.Size([2, 3])"
    assert lib.zeros(()).shape == () and lib.zeros(()).dim() == 0 and lib.zeros(()).numel() == 1


def test_size_out_of_range(lib):
    with pytest.raises(
        IndexError,
        match=re.escape("Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ):
        lib.zeros(2, 3).size(2)


def test_item(lib):
    assert lib.tensor(3.5).item() == 3.5
    assert lib.tensor([2.5]).item() == 2.5
    assert type(lib.tensor(3).item()) is int and type(lib.tensor(True).item()) is bool
    assert lib.ones(1, requires_grad=True).item() == 1.0  # item() cuts no warnings, no error


def test_item_of_many_elements_raises(lib):
    with pytest.raises(
        RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"
    ):
        lib.tensor([1.0, 2.0]).item()


def test_tolist(lib):
    assert lib.tensor([[1.0, 2.0], [3.0, 4.0]]).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert lib.tensor(3).tolist() == 3
    assert lib.ones(2, requires_grad=True).tolist() == [1.0, 1.0]


def test_numpy_shares_memory(lib):
    t = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
    n = t.numpy()
    n[0, 0] = 10.0
    assert t[0, 0].item() == 10.0
    assert n.dtype == np.float32


def test_numpy_refuses_a_tensor_that_requires_grad(lib):
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
        ),
    ):
        lib.ones(1, requires_grad=True).numpy()


def test_python_number_conversions(lib):
    assert bool(lib.tensor([1])) is True and bool(lib.tensor(0.0)) is False
    assert float(lib.tensor([2.5])) == 2.5 and float(lib.tensor(2)) == 2.0
    assert int(lib.tensor(3.9)) == 3 and int(lib.tensor(-3.9)) == -3
    assert list(range(10))[lib.tensor(3)] == 3  # __index__


def test_float_of_a_tensor_that_requires_grad_warns(lib):
    with pytest.warns(UserWarning, match="Converting a tensor with requires_grad=True to a scalar"):
        assert float(lib.ones(1, requires_grad=True)) == 1.0


@pytest.mark.parametrize(
    "convert,error,message",
    [
        (
            lambda lib: bool(lib.tensor([1, 2])),
            RuntimeError,
            "Boolean value of Tensor with more than one value is ambiguous",
        ),
        (
            lambda lib: bool(lib.tensor([])),
            RuntimeError,
            "Boolean value of Tensor with no values is ambiguous",
        ),
        (
            lambda lib: float(lib.tensor([1.0, 2.0])),
            ValueError,
            "only one element tensors can be converted to Python scalars",
        ),
        (
            lambda lib: int(lib.tensor([1.0, 2.0])),
            ValueError,
            "only one element tensors can be converted to Python scalars",
        ),
        (lambda lib: len(lib.tensor(1.0)), TypeError, "len() of a 0-d tensor"),
        (lambda lib: iter(lib.tensor(1.0)), TypeError, "iteration over a 0-d tensor"),
        (
            lambda lib: [1, 2][lib.tensor(1.0)],
            TypeError,
            "only integer tensors of a single element can be converted to an index",
        ),
        (
            lambda lib: [1, 2][lib.tensor([1, 0])],
            TypeError,
            "only integer tensors of a single element can be converted to an index",
        ),
    ],
)
def test_python_conversion_errors(lib, convert, error, message):
    with pytest.raises(error, match=re.escape(message)):
        convert(lib)


def test_len_and_iteration_go_over_the_first_dim(lib):
    t = lib.tensor([[1, 2], [3, 4]])
    assert len(t) == 2
    assert [row.tolist() for row in t] == [[1, 2], [3, 4]]


def test_iteration_keeps_history(lib):
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    rows = list(x * 1)
    assert rows[0].grad_fn.name() == "UnbindBackward0"
    (rows[0] * 2 + rows[1]).sum().backward()
    assert x.grad.tolist() == [[2.0, 2.0], [1.0, 1.0]]


# ---- repr ---------------------------------------------------------------------------------
REPR_CASES = [
    pytest.param(lambda lib: lib.tensor([1, 2, 3]), "tensor([1, 2, 3])", id="tensor_1_2_3"),
    pytest.param(
        lambda lib: lib.tensor([1.0, 2.0, 3.0]), "tensor([1., 2., 3.])", id="tensor_1._2._3."
    ),
    pytest.param(
        lambda lib: lib.tensor([1.5, 2.25]), "tensor([1.5000, 2.2500])", id="tensor_1.5_2.25"
    ),
    pytest.param(
        lambda lib: lib.tensor([-1.0, 2.5]), "tensor([-1.0000,  2.5000])", id="tensor_1._2.5"
    ),
    pytest.param(
        lambda lib: lib.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])", id="tensor_1e_5_1."
    ),
    pytest.param(
        lambda lib: lib.tensor([1e10, 1.0]), "tensor([1.0000e+10, 1.0000e+00])", id="tensor_1e10_1."
    ),
    pytest.param(
        lambda lib: lib.tensor([123456789.0]), "tensor([1.2346e+08])", id="tensor_123456789."
    ),
    pytest.param(
        lambda lib: lib.tensor([0.1, 100000.0]),
        "tensor([1.0000e-01, 1.0000e+05])",
        id="tensor_0.1_100000.",
    ),
    pytest.param(
        lambda lib: lib.tensor([1000.0, 2.0]), "tensor([1000.,    2.])", id="tensor_1000._2."
    ),
    pytest.param(
        lambda lib: lib.tensor([1001.0, 1.0]),
        "tensor([1.0010e+03, 1.0000e+00])",
        id="tensor_1001._1.",
    ),
    pytest.param(lambda lib: lib.tensor(3.0), "tensor(3.)", id="tensor_3."),
    pytest.param(lambda lib: lib.tensor(3), "tensor(3)", id="tensor_3"),
    pytest.param(lambda lib: lib.tensor(-2.5), "tensor(-2.5000)", id="tensor_2.5"),
    pytest.param(lambda lib: lib.tensor(1e-10), "tensor(1.0000e-10)", id="tensor_1e_10"),
    pytest.param(lambda lib: lib.tensor(True), "tensor(True)", id="tensor_rue"),
    pytest.param(lambda lib: lib.tensor([]), "tensor([])", id="tensor"),
    pytest.param(lambda lib: lib.zeros(0, 3), "tensor([], size=(0, 3))", id="zeros_0_3"),
    pytest.param(
        lambda lib: lib.zeros(2, 0, dtype=lib.int64),
        "tensor([], size=(2, 0), dtype=torch.int64)",
        id="zeros_2_0_dtype_int64",
    ),
    pytest.param(
        lambda lib: lib.tensor([], dtype=lib.float64),
        "tensor([], dtype=torch.float64)",
        id="tensor_dtype_float64",
    ),
    pytest.param(
        lambda lib: lib.tensor([[1.0, 2.0], [3.0, 4.0]]),
        "tensor([[1., 2.],\n        [3., 4.]])",
        id="tensor_1._2._3._4.",
    ),
    pytest.param(
        lambda lib: lib.arange(24.0).reshape(2, 3, 4),
        "tensor([[[ 0.,  1.,  2.,  3.],\n         [ 4.,  5.,  6.,  7.],\n         [ 8.,  9., 10., 11.]],\n\n        [[12., 13., 14., 15.],\n         [16., 17., 18., 19.],\n         [20., 21., 22., 23.]]])",
        id="arange_24._.reshape_2_3_4",
    ),
    pytest.param(
        lambda lib: lib.arange(10.0).reshape(10, 1, 1)[:2],
        "tensor([[[0.]],\n\n        [[1.]]])",
        id="arange_10._.reshape_10_1_1_2",
    ),
    pytest.param(
        lambda lib: lib.arange(2000.0),
        "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])",
        id="arange_2000.",
    ),
    pytest.param(
        lambda lib: lib.arange(1200).reshape(40, 30),
        "tensor([[   0,    1,    2,  ...,   27,   28,   29],\n        [  30,   31,   32,  ...,   57,   58,   59],\n        [  60,   61,   62,  ...,   87,   88,   89],\n        ...,\n        [1110, 1111, 1112,  ..., 1137, 1138, 1139],\n        [1140, 1141, 1142,  ..., 1167, 1168, 1169],\n        [1170, 1171, 1172,  ..., 1197, 1198, 1199]])",
        id="arange_1200_.reshape_40_30",
    ),
    pytest.param(
        lambda lib: lib.arange(100),
        "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n        36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53,\n        54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71,\n        72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89,\n        90, 91, 92, 93, 94, 95, 96, 97, 98, 99])",
        id="arange_100",
    ),
    pytest.param(
        lambda lib: lib.arange(30.0).reshape(3, 10) * 1.5,
        "tensor([[ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n         12.0000, 13.5000],\n        [15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000, 24.0000, 25.5000,\n         27.0000, 28.5000],\n        [30.0000, 31.5000, 33.0000, 34.5000, 36.0000, 37.5000, 39.0000, 40.5000,\n         42.0000, 43.5000]])",
        id="arange_30._.reshape_3_10_1.5",
    ),
    pytest.param(
        lambda lib: lib.tensor([1.0, 2.0], dtype=lib.float64),
        "tensor([1., 2.], dtype=torch.float64)",
        id="tensor_1._2._dtype_float64",
    ),
    pytest.param(
        lambda lib: lib.tensor([1.0, 2.5], dtype=lib.float16),
        "tensor([1.0000, 2.5000], dtype=torch.float16)",
        id="tensor_1._2.5_dtype_float16",
    ),
    pytest.param(
        lambda lib: lib.tensor([1.0, 2.0], dtype=lib.bfloat16),
        "tensor([1., 2.], dtype=torch.bfloat16)",
        id="tensor_1._2._dtype_bfloat16",
    ),
    pytest.param(
        lambda lib: lib.tensor([True, False]), "tensor([ True, False])", id="tensor_rue_alse"
    ),
    pytest.param(
        lambda lib: lib.tensor([1, 2], dtype=lib.int32),
        "tensor([1, 2], dtype=torch.int32)",
        id="tensor_1_2_dtype_int32",
    ),
    pytest.param(
        lambda lib: lib.tensor([1, 2], dtype=lib.uint8),
        "tensor([1, 2], dtype=torch.uint8)",
        id="tensor_1_2_dtype_uint8",
    ),
    pytest.param(
        lambda lib: lib.tensor(2.0, dtype=lib.float64),
        "tensor(2., dtype=torch.float64)",
        id="tensor_2._dtype_float64",
    ),
    pytest.param(
        lambda lib: lib.tensor([float("nan"), float("inf"), 1.0]),
        "tensor([nan, inf, 1.])",
        id="tensor_float_nan_float_inf_1.",
    ),
    pytest.param(
        lambda lib: lib.tensor([float("-inf"), 1.5]),
        "tensor([  -inf, 1.5000])",
        id="tensor_float_inf_1.5",
    ),
    pytest.param(
        lambda lib: lib.tensor([1.0, 2.0], requires_grad=True),
        "tensor([1., 2.], requires_grad=True)",
        id="tensor_1._2._requires_grad_rue",
    ),
    pytest.param(
        lambda lib: lib.tensor([1.0, 2.0], requires_grad=True) * 2,
        "tensor([2., 4.], grad_fn=<MulBackward0>)",
        id="tensor_1._2._requires_grad_rue_2",
    ),
    pytest.param(
        lambda lib: lib.tensor([1.0, 2.0], requires_grad=True).sum(),
        "tensor(3., grad_fn=<SumBackward0>)",
        id="tensor_1._2._requires_grad_rue_.sum",
    ),
    pytest.param(
        lambda lib: lib.tensor([2.0], dtype=lib.float64, requires_grad=True) * 2,
        "tensor([4.], dtype=torch.float64, grad_fn=<MulBackward0>)",
        id="tensor_2._dtype_float64_requires_grad_ru",
    ),
    pytest.param(
        lambda lib: lib.arange(30.0).reshape(3, 10).requires_grad_(),
        "tensor([[ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9.],\n        [10., 11., 12., 13., 14., 15., 16., 17., 18., 19.],\n        [20., 21., 22., 23., 24., 25., 26., 27., 28., 29.]],\n       requires_grad=True)",
        id="arange_30._.reshape_3_10_.requires_grad",
    ),
    pytest.param(
        lambda lib: lib.zeros(3, 0, 2, requires_grad=True),
        "tensor([], size=(3, 0, 2), requires_grad=True)",
        id="zeros_3_0_2_requires_grad_rue",
    ),
    pytest.param(
        lambda lib: lib.tensor([1 + 2j, 3 - 1j]), "tensor([1.+2.j, 3.-1.j])", id="tensor_1_2j_3_1j"
    ),
]


@pytest.mark.parametrize("make,expected", REPR_CASES)
def test_repr_matches_pytorch(lib, make, expected):
    assert repr(make(lib)) == expected


def test_repr_shows_the_node_class_not_its_qualified_name(lib):
    x = lib.ones(2, requires_grad=True)
    y = x * 1
    y[0] = 5.0
    z = lib.zeros(2)
    z.copy_(x)
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    assert repr(y) == "tensor([5., 1.], grad_fn=<CopySlices>)"
    assert repr(z) == "tensor([1., 1.], grad_fn=<CopyBackwards>)"


def test_repr_respects_set_default_dtype(lib):
    lib.set_default_dtype(lib.float64)
    try:
        assert repr(lib.tensor([1.0, 2.0])) == "tensor([1., 2.])"
        assert repr(lib.tensor([1.0], dtype=lib.float32)) == "tensor([1.], dtype=torch.float32)"
    finally:
        lib.set_default_dtype(lib.float32)


def test_str_and_format_of_tensors(lib):
    t = lib.tensor([1.0, 2.0])
    assert str(t) == repr(t) == "tensor([1., 2.])"
    assert f"{lib.tensor(6.0)}" == "6.0" and f"{lib.tensor(2.5):.2f}" == "2.50"
    assert f"{lib.tensor(1.0, requires_grad=True) * 3}" == "3.0"
    assert format(t, "") == str(t)
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        f"{t:.2f}"


def test_set_printoptions_precision(lib):
    lib.set_printoptions(precision=2)
    try:
        assert repr(lib.tensor([1.23456, 2.0])) == "tensor([1.23, 2.00])"
    finally:
        lib.set_printoptions(profile="default")
    assert repr(lib.tensor([1.23456, 2.0])) == "tensor([1.2346, 2.0000])"


# ---- Python operators -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "expr,dtype,values",
    [
        (lambda a, b: a + b, "float32", [4.0, 4.0, 4.0]),
        (lambda a, b: a - b, "float32", [-2.0, 0.0, 2.0]),
        (lambda a, b: a * b, "float32", [3.0, 4.0, 3.0]),
        (lambda a, b: a / b, "float32", [1 / 3, 1.0, 3.0]),
        (lambda a, b: a**2, "float32", [1.0, 4.0, 9.0]),
        (lambda a, b: a**b, "float32", [1.0, 4.0, 3.0]),
        (lambda a, b: 2**a, "float32", [2.0, 4.0, 8.0]),
        (lambda a, b: -a, "float32", [-1.0, -2.0, -3.0]),
        (lambda a, b: +a, "float32", [1.0, 2.0, 3.0]),
        (lambda a, b: abs(-a), "float32", [1.0, 2.0, 3.0]),
        (lambda a, b: a + 1, "float32", [2.0, 3.0, 4.0]),
        (lambda a, b: 1 + a, "float32", [2.0, 3.0, 4.0]),
        (lambda a, b: 1 - a, "float32", [0.0, -1.0, -2.0]),
        (lambda a, b: 2 / a, "float32", [2.0, 1.0, 2 / 3]),
        (lambda a, b: a + True, "float32", [2.0, 3.0, 4.0]),
        (lambda a, b: a @ b, "float32", 10.0),
        (lambda a, b: a == b, "bool", [False, True, False]),
        (lambda a, b: a != b, "bool", [True, False, True]),
        (lambda a, b: a < b, "bool", [True, False, False]),
        (lambda a, b: a <= b, "bool", [True, True, False]),
        (lambda a, b: a > b, "bool", [False, False, True]),
        (lambda a, b: a >= b, "bool", [False, True, True]),
        (lambda a, b: a == 2, "bool", [False, True, False]),
        (lambda a, b: 2 < a, "bool", [False, False, True]),
    ],
)
def test_float_operators(lib, expr, dtype, values):
    a, b = lib.tensor([1.0, 2.0, 3.0]), lib.tensor([3.0, 2.0, 1.0])
    r = expr(a, b)
    assert dtype_name(r) == dtype
    np.testing.assert_allclose(r.tolist(), values, rtol=1e-6)


@pytest.mark.parametrize(
    "expr,dtype,values",
    [
        (lambda lib: lib.tensor([1, 2]) / 2, "float32", [0.5, 1.0]),
        (lambda lib: lib.tensor([1, 2]) * 2.5, "float32", [2.5, 5.0]),
        (lambda lib: lib.tensor([1, 2]) ** 2, "int64", [1, 4]),
        (lambda lib: lib.tensor([1, 2]) ** -1.0, "float32", [1.0, 0.5]),
        (lambda lib: lib.tensor([1, 2], dtype=lib.int32) + 5, "int32", [6, 7]),
        (
            lambda lib: lib.tensor([1, 2]) + lib.tensor([1.0, 2.0], dtype=lib.float64),
            "float64",
            [2.0, 4.0],
        ),
        (lambda lib: lib.tensor([1.0]) + lib.tensor(2.0, dtype=lib.float64), "float32", [3.0]),
        (lambda lib: lib.tensor([True]) + 1, "int64", [2]),
        (lambda lib: lib.tensor([1.0, 2.0], dtype=lib.float16) * 2.5, "float16", [2.5, 5.0]),
        (lambda lib: lib.ones(1, dtype=lib.bfloat16) * 2, "bfloat16", [2.0]),
        (lambda lib: ~lib.tensor([True, False]), "bool", [False, True]),
        (lambda lib: lib.tensor([True]) & lib.tensor([False]), "bool", [False]),
        (lambda lib: lib.tensor([5]) | 2, "int64", [7]),
        (lambda lib: lib.tensor([5]) ^ 1, "int64", [4]),
    ],
)
def test_operator_type_promotion(lib, expr, dtype, values):
    r = expr(lib)
    assert (dtype_name(r), r.tolist()) == (dtype, values)


def test_comparison_with_none_is_python_identity(lib):
    a = lib.tensor([1.0])
    assert (a == None) is False and (a != None) is True  # noqa: E711


def test_in_place_operators_keep_the_tensor(lib):
    c = lib.tensor([1.0, 2.0])
    same = c
    c += 1
    c *= 2
    c -= 1
    c /= 2
    assert c is same and c.tolist() == [1.5, 2.5] and c._version == 4


@pytest.mark.parametrize(
    "expr,message",
    [
        (
            lambda lib: lib.tensor([1, 2]).__iadd__(1.5),
            "result type Float can't be cast to the desired output type Long",
        ),
        (
            lambda lib: lib.tensor([1, 2]).__itruediv__(2),
            "result type Float can't be cast to the desired output type Long",
        ),
        (
            lambda lib: lib.tensor([1.0, 2.0]) + lib.tensor([1.0, 2.0, 3.0]),
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
        ),
        (
            lambda lib: lib.ones(2, 3) @ lib.ones(2),
            "size mismatch, got input (2), mat (2x3), vec (2)",
        ),
        (
            lambda lib: lib.tensor([True]) - lib.tensor([True]),
            "Subtraction, the `-` operator, with two bool tensors is not supported.",
        ),
        (
            lambda lib: -lib.tensor([True]),
            "Negation, the `-` operator, on a bool tensor is not supported.",
        ),
    ],
)
def test_operator_errors(lib, expr, message):
    with pytest.raises(RuntimeError, match=re.escape(message)):
        expr(lib)


def test_invert_of_float_raises(lib):
    with pytest.raises(
        TypeError,
        match=re.escape(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        ),
    ):
        ~lib.tensor([1.0])


def test_tensors_hash_by_identity(lib):
    a, b = lib.tensor([1.0]), lib.tensor([1.0])
    assert len({a, b}) == 2 and {a: 1}[a] == 1


# ---- basic indexing -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "index,values",
    [
        (lambda t: t[0], [0.0, 1.0, 2.0, 3.0]),
        (lambda t: t[-1], [8.0, 9.0, 10.0, 11.0]),
        (lambda t: t[1:], [[4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]),
        (lambda t: t[:, 1], [1.0, 5.0, 9.0]),
        (lambda t: t[..., 2], [2.0, 6.0, 10.0]),
        (lambda t: t[0, 1], 1.0),
        (lambda t: t[::2, 3], [3.0, 11.0]),
        (lambda t: t[1][2], 6.0),
        (lambda t: t[1, ...], [4.0, 5.0, 6.0, 7.0]),
        (lambda t: t[0:0], []),
        (lambda t: t[[0, 2], 0], [0.0, 8.0]),
        (lambda t: t[t > 9], [10.0, 11.0]),
        (lambda t: t[:, [1, 3]], [[1.0, 3.0], [5.0, 7.0], [9.0, 11.0]]),
    ],
)
def test_indexing_values(lib, index, values):
    assert index(lib.arange(12.0).reshape(3, 4)).tolist() == values


def test_none_and_ellipsis_add_dims(lib):
    t = lib.arange(12.0).reshape(3, 4)
    assert t[None, 0].shape == (1, 4) and t[..., None].shape == (3, 4, 1)
    assert t[lib.tensor(1)].tolist() == [4.0, 5.0, 6.0, 7.0]


@pytest.mark.parametrize(
    "index,error,message",
    [
        (lambda t: t[3], IndexError, "index 3 is out of bounds for dimension 0 with size 3"),
        (lambda t: t[0, 0, 0], IndexError, "too many indices for tensor of dimension 2"),
        (
            lambda t: t[1.5],
            IndexError,
            "only integers, slices (`:`), ellipsis (`...`), None and long",
        ),
        (lambda t: t[::-1], ValueError, "step must be greater than zero"),
    ],
)
def test_indexing_errors(lib, index, error, message):
    with pytest.raises(error, match=re.escape(message)):
        index(lib.arange(12.0).reshape(3, 4))


def test_basic_indexing_returns_views_that_write_through(lib):
    t = lib.arange(12.0).reshape(3, 4).clone()
    row = t[0]
    row[0] = 100.0
    t[:, 1].fill_(-1.0)
    element = t[2, 3]
    element.fill_(50.0)  # a 0-d selection is a view too
    assert t[0].tolist() == [100.0, -1.0, 2.0, 3.0] and t[2, 3].item() == 50.0
    assert t[0]._base is t and t[[0]]._base is None


def test_setitem_with_tensors_and_numbers(lib):
    t = lib.zeros(2, 3)
    t[0] = lib.tensor([1.0, 2.0, 3.0])
    t[1, 1:] = 7.0
    t[t == 0] = -1.0
    assert t.tolist() == [[1.0, 2.0, 3.0], [-1.0, 7.0, 7.0]]


def test_is_view_is_a_method_as_in_pytorch(lib):
    x = lib.ones(3)
    assert x[0]._is_view() and not x._is_view()
    assert not hasattr(x, "is_view")
