"""Ops on memory against torch: as_strided(_), set_, resize_(_as_), the unsafe splits
(Note [Storage])."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from .oracle import exprs, same, same_grads

ENV = {"x": np.arange(6.0), "m": np.arange(12.0).reshape(3, 4)}

STRIDED = """x.as_strided((2, 2), (1, 2), 1) | x.as_strided((3, 3), (1, 1)) | t.as_strided(x, (2,), (1,))
x.as_strided([2], [1]) | x.as_strided(size=(2,), stride=(2,), storage_offset=1)
x[2:].as_strided((2, 2), (1, 1)) | x[2:].as_strided((2, 2), (1, 1), 0) | m.t().as_strided((2, 2), (1, 4), 1)
x[None].expand(2, 6).as_strided((2,), (1,)) | m[1:].as_strided((2, 2), (4, 1))"""
STRIDED_ERRORS = """x.as_strided((3, 3), (2, 2)) | x.as_strided((2,), (-1,)) | x.as_strided((2, 2), (1,))
x.as_strided((2,), (1,), -1) | x.as_strided((2,), (1,), 5) | x.as_strided(2, 1)
x.as_strided((2,), (1,), storage_offset=1.5) | x.as_strided((0,), (1,), 6)
x.as_strided((2, 3), (3, 1)).is_contiguous()"""


@pytest.mark.parametrize("expr", exprs(STRIDED))
def test_as_strided_matches_torch(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(STRIDED_ERRORS))
def test_as_strided_checks_match_torch(torch, expr):
    same(torch, expr, **ENV)


def test_as_strided_is_a_view_writes_go_through(lib):
    w = lib.arange(6.0)
    v = w.as_strided((2,), (2,))
    v.add_(100)
    assert w.tolist() == [100.0, 1.0, 102.0, 3.0, 4.0, 5.0]
    assert v._base is w and v._version == w._version == 1


def test_as_strided_in_place_changes_the_tensors_geometry(lib):
    x = lib.arange(6.0, requires_grad=True)
    z = x * 1
    assert z.as_strided_((2, 2), (2, 1), 1) is z
    assert z.tolist() == [[1.0, 2.0], [3.0, 4.0]] and z._version == 1
    assert z.grad_fn.name() == "AsStridedBackward1"
    z.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 1.0, 1.0, 0.0]
    w = lib.arange(6.0)
    w.as_strided_((2,), (3,))
    assert w.tolist() == [0.0, 3.0] and w.stride() == (3,) and w.storage_offset() == 0
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad"):
        x.as_strided_((2,), (1,))


def test_as_strided_in_place_on_a_view_stays_a_view(lib):
    base = lib.zeros(6, requires_grad=True).clone()
    v = base[1:]
    v.as_strided_((2,), (1,))
    assert v.grad_fn.name() == "AsStridedBackward1" and v._is_view()


def test_set_takes_the_sources_memory_with_its_own_version_counter(lib):
    x, y = lib.tensor([1.0, 2.0, 3.0, 4.0]), lib.tensor([[5.0, 6.0], [7.0, 8.0]])
    assert x.set_(y) is x
    assert x.tolist() == y.tolist() and x.data_ptr() == y.data_ptr()
    assert (x._version, y._version) == (1, 0)
    x[0, 0] = 100
    assert y[0, 0].item() == 100 and (x._version, y._version) == (2, 0)
    x.set_()
    assert x.shape == (0,) and x._version == 3


SETS = """y.set_(t.arange(3.0), 1, (2,)) | y.set_(t.arange(3.0), 0, (2,), (2,))
y.set_(t.arange(10.0), 2, (2, 2), (2, 1)) | y.set_(t.arange(10.0).untyped_storage(), 2, (2, 2), (2, 1))
t.arange(4.0).set_(t.arange(6.0).untyped_storage()).shape | y.set_(t.zeros(2, dtype=t.int64))
y.set_(3)"""


@pytest.mark.parametrize("expr", exprs(SETS))
def test_set_matches_torch(torch, expr):
    same(torch, expr, y=np.arange(6.0, dtype=np.float32))


def test_set_on_history_records_pytorchs_not_implemented_node(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad"):
        a.set_(lib.zeros(3))
    b = a * 2
    b.set_(lib.zeros(3))
    assert b.grad_fn.name() == "torch::autograd::NotImplemented" and b.requires_grad
    with pytest.raises(RuntimeError, match="^derivative for set_ is not implemented"):
        b.sum().backward()
    c, d = lib.zeros(3), lib.ones(2, requires_grad=True)
    c.set_(d)
    assert c.requires_grad and c.grad_fn.name() == "torch::autograd::NotImplemented"


def test_resize_keeps_memory_while_it_fits_and_grows_it_with_the_old_values(lib):
    x = lib.arange(6.0)
    assert x.resize_(2, 3).tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and x._version == 1
    assert x.resize_(2, 2).tolist() == [[0.0, 1.0], [2.0, 3.0]] and x._version == 2
    assert x.resize_((3,)).tolist() == [0.0, 1.0, 2.0]
    assert x.resize_(6).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert x.resize_(8)[:6].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and x.shape == (8,)
    assert x.resize_(lib.Size([2, 4])).shape == (2, 4)
    v = lib.arange(6.0)[1:4]
    assert v.resize_(5).tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    y = lib.arange(4.0)
    view = y.view(2, 2)
    y.resize_(2)
    assert view.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    assert lib.arange(6.0).resize_as_(lib.zeros(2, 3)).shape == (2, 3)


def test_resize_refuses_what_pytorch_refuses(lib):
    a = lib.ones(2, requires_grad=True)
    for call in (lambda: a.resize_(2), lambda: (a * 2).resize_as_(lib.zeros(2))):
        with pytest.raises(RuntimeError, match="^cannot resize variables that require grad$"):
            call()
    with pytest.raises(RuntimeError, match="^numel: integer multiplication overflow$"):
        lib.arange(6.0).resize_(-1)


def test_resize_takes_a_memory_format(lib):
    x = lib.arange(120.0).resize_(2, 3, 4, 5, memory_format=lib.channels_last)
    assert x.is_contiguous(memory_format=lib.channels_last)


SPLITS = """t.unsafe_split(m, 3, 1) | m.unsafe_split(2) | m.unsafe_split(3, dim=1)
m.unsafe_split_with_sizes([1, 3], 1) | t.unsafe_split_with_sizes(m, [2, 1]) | m.unsafe_chunk(3, 1)
t.unsafe_chunk(m, 2) | t.unsafe_split(m, [1, 2]) | m.unsafe_split(-1)"""


@pytest.mark.parametrize("expr", exprs(SPLITS))
def test_unsafe_splits_match_torch(torch, expr):
    same(torch, expr, requires_grad=True, **ENV)
    if "[1, 2])" not in expr and "-1" not in expr:
        same_grads(torch, expr, **ENV)


def test_unsafe_split_pieces_are_not_views(lib):
    y = lib.arange(10.0, requires_grad=True) * 1
    pieces = y.unsafe_split(5)
    assert not any(p._is_view() for p in pieces)
    pieces[0].mul_(2)  # no view bookkeeping: y's history is untouched, as in PyTorch
    assert y.grad_fn.name() == "MulBackward0"


def test_as_strided_gradient_passes_gradcheck_on_overlapping_memory():
    x = dyngrad.randn(6, dtype=dyngrad.float64, requires_grad=True)
    fn = lambda a: a[None].expand(2, 6).as_strided((3, 2), (1, 2), 1)  # noqa: E731
    assert dyngrad.autograd.gradcheck(fn, (x,))
    assert dyngrad.autograd.gradgradcheck(fn, (x,))


def test_resize_to_the_same_sizes_changes_nothing(lib):
    x = lib.rand(1)
    y = lib.randn(3)
    x.resize_((1, 2))
    x.resize_as_(y)
    assert x._version == 2
    x.resize_((3,))  # no-ops: no version bump, as PyTorch's
    x.resize_as_(y)
    assert x._version == 2 and tuple(x.shape) == (3,)
    base = lib.arange(6.0)
    view = base[1:4]
    view.resize_(3)
    assert view._base is base  # still a view: nothing was resized


EMPTY_STRIDED = """t.empty_strided((2, 2), (4, 2)).stride() | t.empty_strided((2, 3), (1, 2)).is_contiguous()
t.empty_strided((0, 3), (3, 1)).shape | t.empty_strided((2, 2), (1,)) | t.empty_strided((2, -1), (1, 1))
t.empty_strided((2, 2), (-1, 1)) | t.empty_strided((2,), (1,), dtype=t.float64).dtype is t.float64"""


@pytest.mark.parametrize("expr", exprs(EMPTY_STRIDED))
def test_empty_strided_matches_torch(torch, expr):
    same(torch, expr, **ENV)
