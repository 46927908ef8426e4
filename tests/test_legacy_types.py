"""The legacy constructors against torch: torch.FloatTensor and its siblings, torch.Tensor(...),
Tensor.new and new_*, Tensor.type and set_default_tensor_type (Note [Legacy tensor types])."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from .ops.oracle import same

LEGACY = [
    ("FloatTensor", "float32"),
    ("DoubleTensor", "float64"),
    ("HalfTensor", "float16"),
    ("BFloat16Tensor", "bfloat16"),
    ("LongTensor", "int64"),
    ("IntTensor", "int32"),
    ("ShortTensor", "int16"),
    ("CharTensor", "int8"),
    ("ByteTensor", "uint8"),
    ("BoolTensor", "bool"),
]


@pytest.mark.parametrize("name,dtype", LEGACY)
def test_legacy_types_construct_their_dtype_from_sizes_and_data(lib, name, dtype):
    cls = getattr(lib, name)
    assert cls.dtype is getattr(lib, dtype)
    assert cls(2, 3).shape == (2, 3) and cls(2, 3).dtype is getattr(lib, dtype)
    assert type(cls(2)) is lib.Tensor
    assert cls().shape == (0,) and cls(lib.Size([4, 1])).shape == (4, 1)
    assert cls([1, 0]).tolist() == ([True, False] if dtype == "bool" else [1, 0])
    assert repr(cls) == f"<class 'torch.{name}'>" and cls.__name__ == name
    assert type(cls).__name__ == "tensortype" and not cls.is_cuda


CONSTRUCTORS = """t.FloatTensor([1, 2]) | t.FloatTensor((1, 2)) | t.FloatTensor([[1, 2]]) | t.LongTensor([1.7, 2])
t.IntTensor([1.5, 2]) | t.ByteTensor([-1]) | t.BoolTensor([2, 0]) | t.FloatTensor(range(3))
t.FloatTensor(np.array([[1, 2]])) | t.FloatTensor(np.int64(2)).shape | t.FloatTensor(2, -1)
t.FloatTensor(True) | t.FloatTensor(2.5) | t.FloatTensor(np.float64(2.5)) | t.FloatTensor('a')
t.FloatTensor(None) | t.FloatTensor(1.5, 2) | t.FloatTensor(2, 3.0) | t.FloatTensor([1], [2])
t.FloatTensor([1, 2], dtype=t.float64) | t.FloatTensor(2, requires_grad=True)
t.FloatTensor(t.tensor([1, 2])) | t.FloatTensor(t.tensor([1.0], dtype=t.float64))
t.FloatTensor([1], device='cpu') | t.Tensor(2, 3).shape | t.Tensor([[1, 2], [3, 4]])
t.Tensor(t.tensor([1, 2])) | t.DoubleTensor(t.tensor([1.0])) | t.Tensor(2, requires_grad=True) | t.tensor(1).new([1.5])
str(t.tensor([1.0], dtype=t.float64).new(2, 3).dtype) | t.tensor([1.0]).new(t.Size([2])).shape
t.tensor([1.0]).new().shape | t.tensor([1.0]).new([1], dtype=t.float64)"""


@pytest.mark.parametrize(
    "expr", [e.strip() for line in CONSTRUCTORS.splitlines() for e in line.split("|")]
)
def test_legacy_constructor_matches_torch(torch, expr):
    """Values and dtypes, or the same error (first line) as PyTorch's legacy constructor."""
    same(torch, expr.replace("np.", "__import__('numpy')."))


def test_legacy_type_of_a_tensor_is_an_alias_not_a_copy(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    for y in (lib.FloatTensor(x), lib.Tensor(x), x.new(x)):
        assert y._base is x and y.grad_fn.name() == "AliasBackward0"
        assert y.data_ptr() == x.data_ptr()
    y = lib.FloatTensor(x.detach())
    assert y.grad_fn is None and not y.requires_grad


@pytest.mark.parametrize("name,dtype", LEGACY)
def test_isinstance_answers_by_dtype(lib, name, dtype):
    cls = getattr(lib, name)
    t = lib.ones(2, dtype=getattr(lib, dtype))
    assert isinstance(t, cls)
    others = [getattr(lib, n) for n, _ in LEGACY if n != name]
    assert not any(isinstance(t, other) for other in others)
    assert not isinstance(1, cls) and not issubclass(cls, lib.Tensor)


def test_a_parameter_is_an_instance_of_its_legacy_type(lib):
    p = lib.nn.Parameter(lib.ones(2))
    assert isinstance(p, lib.FloatTensor) and not isinstance(p, lib.DoubleTensor)


def test_type_names_and_converts(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    assert x.type() == "torch.FloatTensor"
    for target in (lib.DoubleTensor, "torch.DoubleTensor", lib.float64):
        y = x.type(target)
        assert y.dtype is lib.float64 and y.grad_fn.name() == "ToCopyBackward0"
    assert x.type(lib.FloatTensor) is x
    assert lib.tensor([True]).type() == "torch.BoolTensor"
    assert lib.tensor([1 + 2j]).type() == "torch.ComplexFloatTensor"
    with pytest.raises(ValueError, match="^invalid type: 'torch.Foo'$"):
        x.type("torch.Foo")


def test_set_default_tensor_type_sets_the_default_dtype_and_warns_it_is_deprecated(lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.set_default_tensor_type(lib.DoubleTensor)
    try:
        assert any("set_default_tensor_type() is deprecated" in str(w.message) for w in caught)
        assert lib.get_default_dtype() is lib.float64
        assert lib.tensor([1.5]).dtype is lib.float64 and lib.Tensor(2).dtype is lib.float64
        assert lib.FloatTensor(2).dtype is lib.float32  # a legacy type keeps its own dtype
        lib.set_default_tensor_type("torch.FloatTensor")
        assert lib.get_default_dtype() is lib.float32
    finally:
        lib.set_default_dtype(lib.float32)


def test_set_default_tensor_type_refuses_what_pytorch_refuses(lib):
    with pytest.raises(TypeError, match="^only floating-point types are supported as the default"):
        lib.set_default_tensor_type(lib.LongTensor)
    with pytest.raises(TypeError, match="^invalid type object: only floating-point types"):
        lib.set_default_tensor_type(lib.float64)
    with pytest.raises(AttributeError, match="^module 'torch' has no attribute 'Foo'$"):
        lib.set_default_tensor_type("torch.Foo")
    assert lib.get_default_dtype() is lib.float32


def test_legacy_types_expose_tensor_methods(lib):
    assert lib.FloatTensor.add(lib.ones(2), 1).tolist() == [2.0, 2.0]


NEW = """x.new_zeros(2, 3) | x.new_zeros((2, 3)) | x.new_zeros(size=(2, 3)) | x.new_ones([2])
x.new_empty(size=[2]).shape | x.new_full((2,), 3) | x.new_full(size=(2,), fill_value=3)
x.new_zeros(2, dtype=t.int64) | str(x.new_empty((2,), dtype=t.float16).dtype) | x.new_tensor([1, 2])
x.new_tensor([1], requires_grad=True) | x.new_zeros(size=2) | x.new_zeros((2,), size=(2,))"""


@pytest.mark.parametrize("expr", [e.strip() for line in NEW.splitlines() for e in line.split("|")])
def test_new_factories_match_torch(torch, expr):
    same(torch, expr, x=np.array([1.0, 2.0]))


def test_new_tensor_of_a_tensor_copies_and_says_so(lib):
    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    with pytest.warns(UserWarning, match="rather than tensor.new_tensor\\(sourceTensor\\)") as rec:
        y = x.new_tensor(lib.tensor([1, 2]))
    assert rec[0].filename == __file__
    assert y.dtype is lib.float64 and not y.requires_grad and y.tolist() == [1.0, 2.0]
    with pytest.warns(UserWarning):
        z = x.new_tensor(x)
    assert z.grad_fn is None and z.data_ptr() != x.data_ptr()


def test_tensor_constructor_aliases_a_tensor_of_any_dtype(lib):
    x = lib.tensor([1, 2])
    y = lib.Tensor(x)
    assert y.dtype is lib.int64 and y._base is x and y.data_ptr() == x.data_ptr()


def test_a_tensor_subclass_constructs_itself(lib):
    class Mine(lib.Tensor):
        pass

    assert type(Mine([1, 2])) is Mine and Mine([1, 2]).tolist() == [1.0, 2.0]
    assert Mine(2, 3).shape == (2, 3)
