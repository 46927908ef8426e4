"""A second backward without retain_graph is refused by every node that keeps something for
its backward, index arrays included (PyTorch saves them as tensors)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "make",
    [
        lambda t, b: b[[1, 1]] * 1,  # IndexBackward0 keeps the indices
        lambda t, b: t.gather(b, 0, t.tensor([0, 0])),
        lambda t, b: b.index_select(0, t.tensor([2, 1])),
        lambda t, b: b.masked_fill(t.tensor([True, False, True]), 0.0),
    ],
)
def test_a_second_backward_through_nodes_that_keep_indices_is_refused(lib, make):
    b = lib.randn(3, requires_grad=True, dtype=lib.double)
    out = make(lib, b).sum()
    out.backward(retain_graph=True)
    out.backward()  # retained: fine
    out = make(lib, b).sum()
    out.backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        out.backward()


def test_a_second_backward_through_index_put_is_refused(lib):
    b = lib.randn(3, requires_grad=True, dtype=lib.double)
    c = lib.zeros(3, dtype=lib.double)
    c[[1, 2]] = b[[1, 1]]
    c.backward(lib.ones(3, dtype=lib.double))
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        c.backward(lib.ones(3, dtype=lib.double))


@pytest.mark.parametrize("fmt_a", ["contiguous_format", "channels_last"])
@pytest.mark.parametrize("fmt_b", ["contiguous_format", "channels_last"])
def test_a_dense_leafs_grad_has_the_leafs_strides(lib, fmt_a, fmt_b):
    a = lib.rand((2, 3, 4, 5)).to(memory_format=getattr(lib, fmt_a)).requires_grad_()
    b = lib.rand((2, 3, 4, 5)).to(memory_format=getattr(lib, fmt_b)).requires_grad_()
    a.sum().backward()  # a broadcast gradient
    assert a.grad.stride() == a.stride()
    a.grad = None
    (a * b).sum().backward()
    assert a.grad.stride() == a.stride() and b.grad.stride() == b.stride()


def test_a_leaf_with_gaps_gets_a_row_major_grad(lib):
    c = lib.empty_strided((2, 2), (4, 2)).copy_(lib.rand((2, 2))).requires_grad_()
    c.sum().backward()
    assert c.grad.stride() == (2, 1)
    c.grad = None
    (c * lib.rand((2, 2))).sum().backward()
    assert c.grad.stride() == (2, 1)


def test_ops_without_a_derivative_refuse_at_backward(lib):
    a = lib.rand(2, requires_grad=True)
    b = lib.rand(2, requires_grad=True)
    lib.nextafter(a, b).sum().backward()  # torch 2.13: d/dx = 1, d/dy = 0
    assert a.grad.tolist() == [1.0, 1.0] and b.grad.tolist() == [0.0, 0.0]
    z = lib.heaviside(a, a)
    assert z.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="^derivative for aten::heaviside is not implemented"):
        z.sum().backward()


def test_backward_hooks_dict_can_be_replaced(lib):
    from collections import OrderedDict

    x = lib.ones(2, requires_grad=True)
    x._backward_hooks = OrderedDict()
    x._backward_hooks["triple"] = lambda g: g * 3
    (x * 2).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_an_inference_mode_view_reports_requires_grad_after_its_base_changed(lib):
    a = lib.ones(1, 2, 3, requires_grad=True).clone()
    with lib.inference_mode():
        out = a.view(-1)
        tmp = out.view(-1)
        tmp.add_(2)
        assert tmp.requires_grad and out.requires_grad
