"""A tensor's autograd fields set by hand: `.grad` (assigning, deleting), `grad_dtype`,
`.data`, `detach_()`, `numpy()` under no_grad; PyTorch's checks and messages.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import re
import warnings

import pytest

GRAD_DTYPE_TAIL = (
    "The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can "
    "set the tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. "
    "Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break "
    "downstream systems that assume they match."
)


def test_del_grad_sets_it_to_none(lib):
    x = lib.ones(2, requires_grad=True)
    x.grad = lib.ones(2)
    del x.grad
    assert x.grad is None


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("data", "Deleting tensor data is not allowed. Delete tensor instead!"),
        ("requires_grad", "requires_grad must be a bool"),
        ("_grad_fn", "Deletion of _grad_fn not allowed. Detach tensor instead!"),
        ("_backward_hooks", "Deletion of _backwards_hooks not allowed!"),
    ],
)
def test_what_a_tensor_cannot_lose(lib, name, message):
    x = lib.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(message)):
        delattr(x, name)


def test_assigning_a_grad_is_checked(lib):
    x = lib.ones(5, 5)
    with pytest.raises(TypeError, match="expected to be a Tensor or None"):
        x.grad = 0
    with pytest.raises(RuntimeError, match="can't assign Variable as its own grad"):
        x.grad = x
    with pytest.raises(RuntimeError) as excinfo:
        x.grad = lib.ones(2, 2)
    assert str(excinfo.value) == (
        "attempting to assign a gradient of size '[2, 2]' to a tensor of size '[5, 5]'. Please "
        "ensure that the gradient and the tensor are the same size"
    )
    with pytest.raises(RuntimeError) as excinfo:
        x.grad = lib.ones(5, 5, dtype=lib.long)
    assert str(excinfo.value) == (
        "attempting to assign a gradient with dtype 'long int' to a tensor with grad_dtype "
        f"'Float'. {GRAD_DTYPE_TAIL}"
    )


def test_grad_dtype_defaults_to_the_dtype_and_can_be_any(lib):
    leaf = lib.tensor([1.0, 2.0], requires_grad=True)
    assert leaf.grad_dtype == lib.float32
    leaf.grad_dtype = None
    assert leaf.grad_dtype is None
    leaf.grad = lib.ones(2, dtype=lib.float64)  # any dtype now
    assert leaf.grad.dtype == lib.float64
    with pytest.raises(RuntimeError) as excinfo:
        leaf.grad_dtype = lib.float16
    assert str(excinfo.value).startswith(
        "Cannot set grad_dtype to 'Half' because there is already a gradient with dtype 'double'."
    )
    with pytest.raises(RuntimeError, match="grad_dtype must be a torch.dtype or None, but got int"):
        leaf.grad_dtype = 3


def test_grad_dtype_is_a_leaf_field(lib):
    non_leaf = lib.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="grad_dtype can only be accessed on leaf tensors."):
        non_leaf.grad_dtype
    with (
        warnings.catch_warnings(),  # torch also warns of reading a non-leaf's .grad here
        pytest.raises(RuntimeError, match="grad_dtype can only be set on leaf tensors."),
    ):
        warnings.simplefilter("ignore")
        non_leaf.grad_dtype = lib.float16


def test_grad_dtype_decides_the_accumulated_gradient_dtype(lib):
    class ToDouble(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.to(lib.float64)

    default = lib.tensor([1.0, 2.0], requires_grad=True)
    ToDouble.apply(default).sum().backward()
    assert default.grad.dtype == lib.float32
    free = lib.tensor([1.0, 2.0], requires_grad=True)
    free.grad_dtype = None
    ToDouble.apply(free).sum().backward()
    assert free.grad.dtype == lib.float64
    half = lib.tensor([1.0, 2.0], requires_grad=True)
    half.grad_dtype = lib.float16
    ToDouble.apply(half).sum().backward()
    assert half.grad.dtype == lib.float16 and half.grad.tolist() == [1.0, 1.0]


def test_set_data_on_a_tensor_requiring_grad_must_stay_floating(lib):
    a = lib.tensor(1.0, requires_grad=True)
    a.data = lib.tensor(2.0)
    assert a.item() == 2.0
    with pytest.raises(RuntimeError) as excinfo:
        a.data = lib.tensor(3)
    assert str(excinfo.value) == (
        "data set to a tensor that requires gradients must be floating point or complex dtype"
    )
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got NoneType"):
        a.data = None
    b = lib.tensor(3)
    b.data = lib.ones(2)  # without grad any dtype goes
    assert b.dtype == lib.float32


def test_detach_in_place_of_a_saved_input_is_detected_at_backward(lib):
    a = lib.tensor(1.0, requires_grad=True).clone()
    b = a.sin()
    a.detach_()
    with pytest.raises(RuntimeError) as excinfo:
        b.backward()
    assert str(excinfo.value) == (
        "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
        "This is not supported, please use out-of-place `.detach()` instead"
    )
    a = lib.tensor(1.0, requires_grad=True).clone()
    b = a.exp()  # saves its output, not `a`
    a.detach_()
    b.backward()
    c = lib.tensor(1.0, requires_grad=True).clone()
    c.detach_()
    d = c * lib.tensor(2.0, requires_grad=True)  # saved after the detach: fine
    d.backward()


def test_numpy_of_a_tensor_requiring_grad_is_allowed_under_no_grad(lib):
    x = lib.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape("Can't call numpy() on Tensor that")):
        x.numpy()
    with lib.no_grad():
        assert x.numpy().tolist() == [1.0, 1.0]
    with lib.inference_mode():
        assert x.numpy().tolist() == [1.0, 1.0]
