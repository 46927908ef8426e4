"""The view copies own their memory, keep the view's argument errors, take out=, and
as_strided_scatter's gradients (checked numerically: torch 2.13's for the input is wrong)."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad


def test_copies_are_contiguous_and_never_views(lib):
    x = lib.arange(24.0).reshape(2, 3, 4)
    for y in (
        lib.permute_copy(x, (2, 0, 1)),
        lib.expand_copy(x[:, :1], (2, 3, 4)),
        lib.t_copy(x[0]),
        lib.alias_copy(x),
        lib.unfold_copy(x, 2, 2, 2),
        *lib.split_copy(x, 1, 2),
    ):
        assert y.is_contiguous() and y._base is None
    y = lib.view_copy(x, (6, 4))
    y.add_(1)
    assert x[0, 0, 0].item() == 0.0 and x._version == 0


def test_multi_output_copies_return_tuples(lib):
    x = lib.arange(6.0).reshape(2, 3)
    assert type(lib.split_copy(x, 1)) is tuple
    assert type(lib.unbind_copy(x, 1)) is tuple
    assert [p.tolist() for p in lib.split_with_sizes_copy(x, [2, 1], 1)] == [
        [[0.0, 1.0], [3.0, 4.0]],
        [[2.0], [5.0]],
    ]


def test_view_copy_with_a_dtype_is_detached_as_torch(lib):
    x = lib.ones(2, 2, requires_grad=True)
    y = lib.view_copy(x, lib.int32)
    assert y.dtype == lib.int32 and not y.requires_grad
    assert lib.view_copy(x, lib.float32).grad_fn is None


def test_view_as_complex_copy_refuses_grad_as_torch(lib):
    p = lib.ones(3, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="view_as_complex_copy does not support automatic"):
        lib.view_as_complex_copy(p)
    z = lib.view_as_complex_copy(p.detach())
    assert z.dtype == lib.complex64 and z.tolist() == [1 + 1j] * 3


def test_detach_copy_requires_grad_and_refuses_backward_as_torch(lib):
    x = lib.ones(2, requires_grad=True)
    y = lib.detach_copy(x)
    assert y.requires_grad and y.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::detach_copy is not implemented"):
        y.sum().backward()


@pytest.mark.parametrize(
    "call,error,message",
    [
        (lambda t, x: t.select_copy(x, 0, 5), IndexError, r"select\(\): index 5 out of range"),
        (lambda t, x: t.narrow_copy(x, 0, 2, 3), RuntimeError, r"start \(2\) \+ length \(3\)"),
        (lambda t, x: t.permute_copy(x, (0,)), RuntimeError, r"permute\(sparse_coo\): number"),
        (lambda t, x: t.view_copy(x, (5,)), RuntimeError, r"shape '\[5\]' is invalid"),
        (
            lambda t, x: t.as_strided_scatter(x, t.ones(3), (2,), (1,)),
            RuntimeError,
            "expected src to have a size equal to the slice of self",
        ),
    ],
)
def test_argument_errors_as_torch(lib, call, error, message):
    with pytest.raises(error, match=message):
        call(lib, lib.ones(3, 4))


def test_out_argument(lib):
    x = lib.arange(6.0).reshape(2, 3)
    out = lib.empty(3, 2)
    assert lib.transpose_copy(x, 0, 1, out=out) is out
    assert out.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    out = lib.empty(2, 1)
    assert lib.narrow_copy(x, 1, 2, 1, out=out).tolist() == [[2.0], [5.0]]


def test_narrow_copy_method_and_function_agree(lib):
    x = lib.arange(12.0).reshape(3, 4)
    assert x.narrow_copy(1, 1, 2).tolist() == lib.narrow_copy(x, 1, 1, 2).tolist()
    assert x.narrow_copy(1, 1, 2).tolist() == [[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]]


def test_as_strided_scatter_values_as_torch(lib):
    x = lib.arange(12.0).reshape(3, 4)
    src = lib.tensor([[10.0, 20.0], [30.0, 40.0]])
    y = x.as_strided_scatter(src, (2, 2), (1, 2), 1)
    assert y.tolist() == [[0.0, 10.0, 30.0, 20.0], [40.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]
    assert lib.as_strided_scatter(x, src, (2, 2), (1, 2)).flatten()[:5].tolist() == [
        10.0,
        30.0,
        20.0,
        40.0,
        4.0,
    ]


def test_as_strided_scatter_gradients_pass_gradcheck():
    rng = np.random.default_rng(0)
    x = dyngrad.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    src = dyngrad.tensor(rng.standard_normal((2, 2)), requires_grad=True)

    def fn(x, src):
        return dyngrad.as_strided_scatter(x, src, (2, 2), (1, 2), 1)

    assert dyngrad.autograd.gradcheck(fn, (x, src))
    assert dyngrad.autograd.gradgradcheck(fn, (x, src))
    y = fn(x, src)
    assert y.grad_fn.name() == "AsStridedScatterBackward0"
    y.backward(dyngrad.ones(3, 4))
    # the input's gradient is zero where src was written (flat positions 1 to 4)
    assert x.grad.flatten().tolist() == [1.0, 0.0, 0.0, 0.0, 0.0] + [1.0] * 7
