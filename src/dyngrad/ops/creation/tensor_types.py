"""The legacy constructors real programs still call: `torch.FloatTensor` and its siblings,
`torch.Tensor(...)`, `Tensor.new(...)`, the `new_*` factories, `set_default_tensor_type`.

# Note [Legacy tensor types]
# `torch.FloatTensor` is not a class of tensors: `type(torch.FloatTensor(2))` is `torch.Tensor`.
# It is a constructor of float32 tensors that `isinstance` answers for (a float32 CPU tensor
# is an instance, a Parameter too), whose name `Tensor.type()` prints, and which `type()` and
# `set_default_tensor_type` accept. Its metaclass, `tensortype`, does all three. The legacy
# constructor reads its arguments as PyTorch's does: sizes (`FloatTensor(2, 3)`, a
# `torch.Size`), data (a list, tuple, range or array), or a tensor of its own dtype, which it
# returns an alias of (AliasBackward0), never a copy or a cast.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._tensor import Tensor, above
from ...runtime import dtypes
from ...runtime.dtypes import defaults
from ...size import Size
from ..shape.reshaping import ALIAS
from ..table.argument_errors import type_name
from ..table.arguments import int_list, is_int, size_arg
from ..table.errors import c_type_name
from ..table.record import apply
from ..table.surface import public
from .conversion import LEGACY_NAMES
from .factories import _fill_value, _filled, _infer, tensor

__all__ = ["tensortype", "LEGACY_TYPES", "legacy_new", "set_default_tensor_type"]


class tensortype(type):
    """Matches `torch.tensortype`: the type of `torch.FloatTensor` and its siblings."""

    dtype: dtypes.dtype

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj._data.dtype == cls.dtype.np and obj.is_cpu

    def __subclasscheck__(cls, sub) -> bool:
        return sub is cls

    def __call__(cls, *args, **kwargs) -> Tensor:
        return legacy_new(cls.dtype, args, kwargs)

    def __getattr__(cls, name: str):  # `torch.FloatTensor.add` is Tensor's method, as in PyTorch
        return getattr(Tensor, name)


tensortype.__module__ = "torch"


def _legacy_type(d: dtypes.dtype) -> tensortype:
    name = f"{d._legacy}Tensor"
    cls = tensortype(name, (), {"__module__": "torch", "__qualname__": name, "__slots__": ()})
    cls.dtype = d
    cls.is_cuda = False
    cls.is_sparse = False
    return cls


# PyTorch's ten real legacy types (no complex ones); each is `dyngrad.<Legacy>Tensor`
LEGACY_TYPES = {
    f"{d._legacy}Tensor": _legacy_type(d)
    for d in (
        dtypes.float32,
        dtypes.float64,
        dtypes.float16,
        dtypes.bfloat16,
        dtypes.int64,
        dtypes.int32,
        dtypes.int16,
        dtypes.int8,
        dtypes.uint8,
        dtypes.bool_,
    )
}
for _name, _cls in LEGACY_TYPES.items():
    public(_cls, name=_name, method=False)
    LEGACY_NAMES[f"torch.{_name}"] = _cls.dtype  # Tensor.type(torch.FloatTensor) and by name


# ---- the legacy constructor -------------------------------------------------------------------


def _options(d: dtypes.dtype) -> str:
    return (
        f"TensorOptions(dtype={c_type_name(d)}, device=cpu, layout=Strided, requires_grad=false "
        "(default), pinned_memory=false (default), memory_format=(nullopt))"
    )


def _invalid(args, kwargs) -> TypeError:
    given = [type_name(a) for a in args] + [f"{k}={type_name(v)}" for k, v in kwargs.items()]
    return TypeError(
        f"new() received an invalid combination of arguments - got ({', '.join(given)}), but "
        "expected one of:"
    )


def legacy_new(d: dtypes.dtype, args: tuple, kwargs: dict) -> Tensor:
    """`torch.FloatTensor(...)`, `torch.Tensor(...)`, `x.new(...)` (dtype `d`): sizes, data or
    a tensor of dtype `d` (an alias). See Note [Legacy tensor types]."""
    if set(kwargs) - {"device"}:
        raise _invalid(args, kwargs)
    if len(args) == 1 and not is_int(args[0]) and not isinstance(args[0], Size):
        return _from_one(d, args[0])
    if not all(is_int(a) for a in args) and not (len(args) == 1 and isinstance(args[0], Size)):
        if len(args) > 1 and is_int(args[0]):
            bad = next(a for a in args if not is_int(a))
            raise TypeError(
                f"new(): argument 'size' failed to unpack the object at pos "
                f'{args.index(bad) + 1} with error "type must be tuple of ints,but got '
                f'{type_name(bad)}"'
            )
        raise _invalid(args, kwargs)
    shape = int_list("new", args) if args else (0,)
    if any(s < 0 for s in shape):
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}"
        )
    return _filled("new", None, shape, d, False, None)  # zeros: See torch.empty


def _from_one(d: dtypes.dtype, value) -> Tensor:
    if isinstance(value, Tensor):
        if value._data.dtype != d.np:
            raise TypeError(f"expected {_options(d)} (got {_options(value.dtype)})")
        return apply(ALIAS, (value,))
    if isinstance(value, str):
        raise TypeError("new(): invalid data type 'str'")
    if not isinstance(value, (list, tuple, range, np.ndarray)):
        raise TypeError(f"new(): data must be a sequence (got {type_name(value)})")
    data = list(value) if isinstance(value, range) else value
    return Tensor._wrap(np.array(_infer(data, d), dtype=d.np))


def _tensor_new(cls, *args, **kwargs):
    # `torch.Tensor(...)`: See Note [Calls up the layers] in _tensor.py. Unlike the typed
    # constructors, it takes a tensor of any dtype (an alias of it).
    other = args[0] if len(args) == 1 and not kwargs else None
    d = other.dtype if isinstance(other, Tensor) else defaults.float
    t = legacy_new(d, args, kwargs)
    if cls is Tensor:
        return t
    sub = object.__new__(cls)
    sub._init(t._data, False, None)
    return sub


above.legacy_new = _tensor_new


# ---- Tensor.new and the new_* factories -------------------------------------------------------


@public(function=False)
def new(self, *args, **kwargs) -> Tensor:
    """Matches `torch.Tensor.new`: the legacy constructor with `self`'s dtype."""
    return legacy_new(self.dtype, args, kwargs)


def _new_filled(fill, kind: str):
    def new_filled(
        self,
        *sizes,
        size=None,
        dtype=None,
        device=None,
        requires_grad=False,
        layout=None,
        pin_memory=False,
    ):
        shape = size_arg(name, sizes, size, position=2)
        return _filled(name, fill, shape, dtype or self.dtype, requires_grad, device)

    name = f"new_{kind}"
    new_filled.__name__ = name
    new_filled.__doc__ = f"Matches `torch.Tensor.{name}`: `self`'s dtype unless told."
    return public(new_filled, name=name, function=False)


_new_filled(0, "zeros")
_new_filled(1, "ones")
_new_filled(None, "empty")


@public(function=False)
def new_full(
    self,
    size,
    fill_value,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
    layout=None,
    pin_memory=False,
):
    """Matches `torch.Tensor.new_full`."""
    shape = int_list("new_full", (size,), position=2, varargs=False)
    fill_value = _fill_value("new_full", fill_value, 3)
    return _filled("new_full", fill_value, shape, dtype or self.dtype, requires_grad, device)


_NEW_TENSOR_COPY = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than "
    "tensor.new_tensor(sourceTensor)."
)


@public(function=False)
def new_tensor(
    self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False
):
    """Matches `torch.Tensor.new_tensor`: a copy of `data` with `self`'s dtype unless told."""
    if isinstance(data, Tensor):
        warnings.warn(_NEW_TENSOR_COPY, UserWarning, stacklevel=2)
        data = data.detach()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.tensor's own copy warning: said above
        return tensor(data, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


# ---- the default tensor type --------------------------------------------------------------------

_DEPRECATED = (
    "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
    "torch.set_default_dtype() and torch.set_default_device() as alternatives."
)
_warned = False


@public(method=False)
def set_default_tensor_type(t, /) -> None:
    """Matches `torch.set_default_tensor_type`: the legacy type's dtype becomes the default
    (deprecated in PyTorch too; warns once)."""
    global _warned
    if isinstance(t, str):
        if t not in LEGACY_NAMES or f"{LEGACY_NAMES[t]._legacy}Tensor" not in LEGACY_TYPES:
            raise AttributeError(f"module 'torch' has no attribute '{t.rsplit('.', 1)[-1]}'")
        t = LEGACY_TYPES[f"{LEGACY_NAMES[t]._legacy}Tensor"]
    if not isinstance(t, tensortype):
        raise TypeError(
            "invalid type object: only floating-point types are supported as the default type"
        )
    if not _warned:
        warnings.warn(_DEPRECATED, UserWarning, stacklevel=2)
        _warned = True
    dtypes.set_default_dtype(t.dtype)
