"""Views PyTorch forbids writing into: made under no_grad, of several outputs, or returned by
a custom Function (Note [Views made without grad]); and view replay.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import pytest

from .conftest import first_line

NO_GRAD_VIEW = "A view was created in no_grad mode and is being modified inplace with grad mode"
CUSTOM = "This view was created inside a custom Function (or because an input was returned as-is)"


def test_a_no_grad_view_of_a_tensor_requiring_grad_requires_grad(lib):
    s = lib.ones(2, requires_grad=True)
    with lib.no_grad():
        v = s.view(-1)
    assert (v.requires_grad, v.is_leaf, v._is_view(), v.grad_fn) == (True, True, True, None)


def test_writing_into_a_no_grad_view_with_grad_on_is_refused(lib):
    a = lib.ones(2, requires_grad=True).clone()
    with lib.no_grad():
        v = a.view(-1)
    with pytest.raises(RuntimeError) as excinfo:
        v.add_(1)
    assert first_line(excinfo).startswith(NO_GRAD_VIEW)
    assert first_line(excinfo).endswith(
        "You can clarify your code by moving both the view and the inplace either both inside "
        "the no_grad block (if you don't want the inplace to be tracked) or both outside (if "
        "you want the inplace to be tracked)."
    )


def test_a_no_grad_view_of_a_tensor_without_grad_is_refused_only_with_a_grad_input(lib):
    b = lib.ones(2)
    with lib.no_grad():
        w = b.view(-1)
    w.add_(1)  # nothing requires grad: allowed
    with pytest.raises(RuntimeError) as excinfo:
        w.add_(lib.ones(2, requires_grad=True))
    assert first_line(excinfo).startswith(NO_GRAD_VIEW)


def test_a_no_grad_view_whose_base_changed_is_refused_and_prints_invalid(lib):
    a = lib.ones(1, requires_grad=True)
    with lib.no_grad():
        b = a[:]
        b *= 2
    assert repr(b) == "tensor([2.], grad_fn=<Invalid>)"
    c = lib.ones(2, requires_grad=True).clone()
    with lib.no_grad():
        v = c[0]
    c.mul_(2)
    with pytest.raises(RuntimeError) as excinfo:
        v * 2
    assert first_line(excinfo).startswith(
        "A view was created in no_grad mode and its base or another view of its base has been "
        "modified inplace with grad mode enabled."
    )


def test_a_view_of_a_tensor_made_before_it_required_grad_is_a_view_of_a_leaf(lib):
    a = lib.randn(2, 3)
    b = a[:]
    a.requires_grad = True
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        b.add_(5)


def test_one_of_several_views_is_refused_even_without_grad_of_its_own(lib):
    a = lib.rand(1, 2)
    view = a.unbind()[0]
    with pytest.raises(RuntimeError) as excinfo:
        view.copy_(lib.rand(1, requires_grad=True))
    assert "This view is the output of a function that returns multiple views." in str(
        excinfo.value
    )


def _function(lib, forward):
    class Alias(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return forward(x)

        @staticmethod
        def backward(ctx, g):
            return g

    return Alias


@pytest.mark.parametrize("forward", [lambda x: x[:], lambda x: x], ids=["view", "input"])
def test_a_view_returned_by_a_custom_function_is_refused(lib, forward):
    out = _function(lib, forward).apply(lib.ones(2, requires_grad=True).clone())
    assert out._is_view() and out.grad_fn is not None
    with pytest.raises(RuntimeError) as excinfo:
        out.zero_()
    assert first_line(excinfo) == (
        f"Output 0 of Alias is a view and is being modified inplace. {CUSTOM} and the autograd "
        "logic to handle view+inplace would override the custom backward associated with the "
        "custom Function, leading to incorrect gradients. This behavior is forbidden. You can "
        "fix this by cloning the output of the custom Function."
    )
    with pytest.raises(RuntimeError, match="Output 0 of View is a view and is being modified"):
        out.view(-1).zero_()


def test_a_custom_function_view_made_under_no_grad(lib):
    inp = lib.rand(2, requires_grad=True)
    with lib.no_grad():
        out = _function(lib, lambda x: x[:]).apply(inp)
        expected = inp[:]
    assert out.requires_grad == expected.requires_grad
    with pytest.raises(RuntimeError) as excinfo:
        out.zero_()
    assert first_line(excinfo).startswith(NO_GRAD_VIEW) and CUSTOM in first_line(excinfo)


def test_a_custom_function_view_of_an_input_without_grad(lib):
    out = _function(lib, lambda x: x[:]).apply(lib.ones(2))
    assert (out.requires_grad, out._is_view()) == (False, True)
    out.zero_()
    with pytest.raises(RuntimeError) as excinfo:
        out.add_(lib.ones(2, requires_grad=True))
    assert first_line(excinfo).startswith(NO_GRAD_VIEW) and CUSTOM in first_line(excinfo)


def test_a_view_made_and_written_inside_forward_keeps_the_function_as_history(lib):
    class Local(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            view = inp.clone()[:3]
            view += 2
            return view

        @staticmethod
        def backward(ctx, grad):
            return grad

    out = Local.apply(lib.rand(10, requires_grad=True))
    assert type(out.grad_fn).__name__ == "LocalBackward"


def test_view_replay_rebuilds_a_written_view_with_its_own_ops(lib):
    x = lib.ones(2, 2, requires_grad=True)

    def written():
        out = x.clone().view(-1)
        out.add_(1)
        return out

    assert "AsStridedBackward" in str(written().grad_fn)
    with lib.autograd._force_original_view_tracking(True):
        assert lib.autograd.is_view_replay_enabled()
        out = written()
        assert "ViewBackward" in str(out.grad_fn)
        out.sum().backward()
        assert x.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert not lib.autograd.is_view_replay_enabled()
    lib.autograd._force_original_view_tracking(True)  # as a function: at once
    try:
        assert "ViewBackward" in str(written().grad_fn)
    finally:
        lib.autograd._force_original_view_tracking(False)
    assert not lib.autograd.is_view_replay_enabled()


def test_a_view_requires_grad_once_its_base_is_written_with_a_tensor_that_does(lib):
    r = lib.ones(1, dtype=lib.double, requires_grad=True)
    x = lib.ones(5, dtype=lib.double)
    v = x.select(0, 1)
    assert not v.requires_grad and v.grad_fn is None
    x.add_(r)
    assert v.requires_grad
    v.backward()
    assert r.grad.tolist() == [1.0]


@pytest.mark.parametrize(
    "write", [lambda t: t.add_(2), lambda t: t.transpose_(0, 1), lambda t: t.unsqueeze_(0)]
)
def test_an_inference_mode_view_of_a_tensor_without_grad_may_be_written(lib, write):
    for requires_grad in (True, False):
        a = lib.ones(1, 2, 3, requires_grad=requires_grad).clone()
        with lib.inference_mode():
            out = a.view_as(a)
        if requires_grad:
            with pytest.raises(RuntimeError, match="^A view was created in inference mode"):
                write(out)
        else:
            write(out)


def test_resize_of_a_tensor_that_requires_grad_is_allowed_in_inference_mode(lib):
    with lib.inference_mode():
        y = lib.ones(2, requires_grad=True)
        y.resize_(1, 2)
        assert tuple(y.shape) == (1, 2)
    with pytest.raises(RuntimeError, match="^cannot resize variables that require grad"):
        with lib.no_grad():
            lib.ones(2, requires_grad=True).resize_(1, 2)
