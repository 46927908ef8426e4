"""Inference tensors and views made without grad: PyTorch's rules and errors.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import re

import pytest

from .conftest import first_line

SAVED = "Inference tensors cannot be saved for backward."
INPLACE_OUTSIDE = "Inplace update to inference tensor outside InferenceMode is not allowed."
VERSION = "Inference tensors do not track version counter."


def _inference(lib, *shape, requires_grad=False):
    with lib.inference_mode():
        return lib.ones(*shape, requires_grad=requires_grad)


def test_tensors_made_in_inference_mode_are_inference_tensors(lib):
    with lib.inference_mode():
        made = lib.ones(2, 3)
        computed = made * 2
        required = lib.ones(2, requires_grad=True)
    assert lib.is_inference(made) and made.is_inference() and lib.is_inference(computed)
    assert required.requires_grad and required.is_inference()
    assert not lib.is_inference(lib.ones(2)) and not lib.is_inference(made * 2)


def test_an_inference_tensor_has_no_version(lib):
    with pytest.raises(RuntimeError, match=re.escape(VERSION)):
        _inference(lib, 2)._version


def test_writing_into_an_inference_tensor_outside_inference_mode_is_refused(lib):
    c = _inference(lib, 2)
    with pytest.raises(RuntimeError, match=re.escape(INPLACE_OUTSIDE)):
        c.add_(1)
    with lib.inference_mode():
        c.add_(1)  # inside, it is allowed and stays an inference tensor
    assert c.is_inference() and c.tolist() == [3.0, 3.0]  # PyTorch wrote before refusing


def test_an_inference_tensor_cannot_be_saved_for_backward(lib):
    s = lib.ones(2, requires_grad=True)
    c = _inference(lib, 2, requires_grad=True)
    out = c.add(s)  # add saves nothing: allowed, and the leaf gets its gradient
    out.sum().backward()
    assert c.grad.tolist() == [1.0, 1.0] and not out.is_inference()
    with pytest.raises(RuntimeError, match=re.escape(SAVED)):
        c * s
    with pytest.raises(RuntimeError, match=re.escape(SAVED)):
        s.clone().mul_(_inference(lib, 2))


def test_requires_grad_on_an_inference_tensor_only_inside_inference_mode(lib):
    c = _inference(lib, 2)
    with pytest.raises(RuntimeError) as excinfo:
        c.requires_grad_()
    assert first_line(excinfo) == (
        "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
    )
    with lib.inference_mode():
        assert c.requires_grad_().requires_grad


@pytest.mark.parametrize("requires_grad", [False, True])
def test_a_view_of_an_inference_tensor_is_an_inference_tensor_not_a_view(lib, requires_grad):
    c = _inference(lib, 1, 2, 3, requires_grad=requires_grad)
    out = c.view(-1)
    assert out.is_inference() and not out._is_view() and out.is_leaf
    assert not out.requires_grad


def test_views_and_writes_of_normal_tensors_in_inference_mode_stay_normal(lib):
    a = lib.ones(1, 2, 3, requires_grad=True).clone()
    with lib.inference_mode():
        a.add_(2)
        view = a.view(-1)
        assert not a.is_inference() and not view.is_inference()
        assert view._is_view() and view.requires_grad and view.is_leaf


def test_inference_mode_takes_mode_as_a_keyword(lib):
    def inside():
        return lib.is_inference_mode_enabled()

    assert lib.inference_mode(mode=inside)() is True
    assert lib.inference_mode(mode=False)(inside)() is False
    with lib.no_grad():
        with lib.inference_mode(mode=True):
            assert lib.is_inference(lib.ones(1))
        assert not lib.is_grad_enabled()


def test_inference_mode_nested_in_no_grad_and_back(lib):
    with lib.no_grad():
        with lib.inference_mode():
            assert lib.is_inference_mode_enabled() and not lib.is_grad_enabled()
        assert not lib.is_inference_mode_enabled() and not lib.is_grad_enabled()
    with lib.inference_mode():
        with lib.no_grad():
            assert lib.is_inference(lib.ones(1))


def test_an_inference_mode_view_written_in_normal_mode_is_refused(lib):
    a = lib.ones(2, requires_grad=True).clone()
    with lib.inference_mode():
        view = a.view_as(a)
    with pytest.raises(RuntimeError) as excinfo:
        view.add_(1)
    assert first_line(excinfo).startswith(
        "A view was created in inference mode and is being modified inplace in normal mode. "
        "Given that this use case is ambiguous and error-prone, it is forbidden."
    )


def test_an_inference_mode_view_whose_base_changed_is_refused(lib):
    a = lib.ones(2, requires_grad=True).clone()
    with lib.inference_mode():
        view = a.view(-1)
    a.add_(1)
    with pytest.raises(RuntimeError) as excinfo:
        view.grad_fn
    assert first_line(excinfo).startswith(
        "A view was created in inference mode and its base or another view of its base has "
        "been modified inplace in normal mode."
    )


def test_a_view_of_a_no_grad_view_names_its_own_node(lib):
    x = lib.zeros(2)
    with lib.no_grad():
        y = x.view(2)
    y.requires_grad_(True)
    z = y.view(2)
    with pytest.raises(RuntimeError) as excinfo:
        z /= 2
    assert first_line(excinfo).startswith(
        "Output 0 of View is a view of a view which was created in no_grad mode and is being "
        "modified inplace with grad mode enabled."
    )
    assert "inside the no_grad block" in first_line(excinfo)
