"""allow_mutation_on_saved_tensors: saved tensors copied before an in-place write.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import pytest

from .conftest import first_line

MODIFIED = "variables needed for gradient computation has been modified by an inplace"


def square_then_write(lib, a, write):
    b = a.clone()
    out = (b**2).sum()
    write(b)
    out.backward()
    return a.grad


def test_a_saved_tensor_may_be_written_inside(lib):
    a = lib.rand(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match=MODIFIED):
        square_then_write(lib, a, lambda b: b.sin_())
    a.grad = None
    with lib.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        grad = square_then_write(lib, a, lambda b: b.sin_())
    assert lib.allclose(grad, 2 * a)
    assert len(list(ctx.cloned.items())) == 0  # the copy went with the graph


def test_writes_through_views_and_into_bases_are_seen(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        a = lib.rand(2, 3, requires_grad=True)
        grad = square_then_write(lib, a, lambda b: b.view_as(b).sin_())
        assert lib.allclose(grad, 2 * a)
        b = a.clone()
        c = b[:]
        out = (c**2).sum()
        b *= 2  # the base of what was saved
        a.grad = None
        out.backward()
        assert lib.allclose(a.grad, 2 * a)


def test_one_copy_per_tensor_and_version(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        a = lib.randn(2, 3, requires_grad=True).clone()
        b = a**2
        c = a**2
        a.sin_()
        assert len(list(ctx.cloned.items())) == 1
        del b, c
        assert len(list(ctx.cloned.items())) == 0
        b = a**2
        a.sin_()
        c = a**2
        a.sin_()
        assert len(list(ctx.cloned.items())) == 2
        del b
        assert len(list(ctx.cloned.items())) == 1
        del c
        assert len(list(ctx.cloned.items())) == 0


def test_a_tensor_no_longer_saved_is_not_copied(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        a = lib.randn(2, 3, requires_grad=True).clone()
        out = (a**2).sum()
        assert len(list(ctx.tid_to_weakhandle.items())) == 1
        out.backward()
        a.sin_()
        assert len(list(ctx.cloned.items())) == 0


def test_out_argument_writes_are_seen(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        a = lib.tensor([1.0], requires_grad=True)
        b = lib.tensor([1.0])
        out = a * b
        lib.sin(lib.tensor([2.0]), out=b)
        assert len(list(ctx.cloned.items())) == 1
        out.backward()
    assert a.grad.tolist() == [1.0]


def test_inplace_op_saving_its_result_inside(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        a = lib.randn(3, requires_grad=True)
        b = a.clone()
        b.exp_()  # saves b as written
        b.mul_(2)  # writes into what exp_ saved
        b.sum().backward()
    assert lib.allclose(a.grad, 2 * a.exp())


def test_double_backward_inside(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        a = lib.rand(2, 3, requires_grad=True)
        b = a.clone()
        out = (b**2).sum()
        b.sin_()
        (da,) = lib.autograd.grad(out, a, create_graph=True)
        (d2a,) = lib.autograd.grad(da.sum(), a)
    assert lib.allclose(d2a, lib.ones_like(a) * 2)


def test_backward_outside_the_context_raises(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        a = lib.rand(2, 3, requires_grad=True)
        out = (a**2).sum()
    with pytest.raises(AssertionError) as excinfo:
        out.backward()
    assert first_line(excinfo) == (
        "Trying to backward outside of the 'allow_mutation_on_saved_tensors' contextin which "
        "the graph was originally recorded."
    )
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        a = lib.rand(2, 3, requires_grad=True)
        out = (a**2).sum()
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        with pytest.raises(AssertionError, match="Trying to backward outside"):
            out.backward()


def test_contexts_cannot_nest(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        with pytest.raises(RuntimeError) as excinfo:
            with lib.autograd.graph.allow_mutation_on_saved_tensors():
                pass
    assert first_line(excinfo) == "allow_mutation_on_saved_tensors contexts cannot be nested"
