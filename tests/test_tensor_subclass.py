"""Tensor subclasses: `as_subclass` (an alias with AliasBackward0) and how they print."""

from __future__ import annotations

import pytest


def _sub(lib):
    class Tagged(lib.Tensor):
        pass

    return Tagged


def test_as_subclass_is_an_alias_with_history(lib):
    tagged = _sub(lib)
    x = lib.ones(2, requires_grad=True)
    y = (x * 2).as_subclass(tagged)
    assert type(y) is tagged and isinstance(y, lib.Tensor)
    assert y.grad_fn.name() == "AliasBackward0" and y.requires_grad and not y.is_leaf
    assert y._base is not None and y._version == 0
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    plain = lib.ones(2).as_subclass(tagged)
    plain.add_(1)
    assert plain.tolist() == [2.0, 2.0] and not plain.requires_grad


def test_as_subclass_refuses_a_class_that_is_not_a_tensor(lib):
    with pytest.raises(TypeError, match="^Creating a Tensor subclass from a class that does not"):
        lib.ones(2).as_subclass(int)


def test_a_subclass_prints_its_name_parameter_prints_tensor(lib):
    tagged = _sub(lib)
    assert repr(lib.ones(2).as_subclass(tagged)) == "Tagged([1., 1.])"
    assert repr(lib.ones(2, requires_grad=True).as_subclass(tagged)) == (
        "Tagged([1., 1.], grad_fn=<AliasBackward0>)"
    )
    assert repr(lib.nn.Parameter(lib.ones(2))) == (
        "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    )


def test_torch_function_override_warns_that_it_is_not_run():
    import dyngrad

    with pytest.warns(UserWarning, match="dyngrad does not run the __torch_function__ protocol"):

        class Logged(dyngrad.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return super().__torch_function__(func, types, args, kwargs)

    x = dyngrad.ones(2).as_subclass(Logged)
    assert (x + 1).tolist() == [2.0, 2.0]
    assert Logged.__torch_function__(dyngrad.add, (Logged,), (x, 1)).tolist() == [2.0, 2.0]
