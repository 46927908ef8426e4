"""dtype and device conversion (`to`, `float`, `type`, ...) and the in-place fills and copies."""

from __future__ import annotations

import builtins

from ..._tensor import Tensor
from ...runtime import device as Device
from ...runtime import dtypes
from ...runtime.memory_format import (
    check_format,
    check_rank,
    in_format,
    is_contiguous_as,
    preserve_format,
)
from ...runtime.sparse_coo import SparseCOO
from ...runtime.transfer import to_device
from ..shape.reshaping import clone
from ..table.arguments import fill_value
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .factories import zeros_like


def _zeros_of(g):

    return zeros_like(g)


TO_COPY = defop(
    "to_copy", lambda xp, x, *, dtype: x.astype(dtype), {"x": lambda g: g}, node="ToCopyBackward0"
)
COPY = defop(
    "copy",
    lambda xp, x, src: xp.broadcast_to(src, x.shape).astype(x.dtype),
    {"x": lambda g: _zeros_of(g), "src": lambda g: g},
    node="CopyBackwards",
)
FILL = defop(
    "fill",
    lambda xp, x, *, value: xp.full_like(x, value),
    {"x": lambda g: _zeros_of(g)},
    node="FillBackward2",
)
# fill_ with a 0-d tensor value: PyTorch's FillBackward3 (the value's gradient is g summed)
FILL_TENSOR = defop(
    "fill_tensor", COPY.fwd, {"x": lambda g: _zeros_of(g), "src": lambda g: g}, node="FillBackward3"
)
ZERO = defop("zero", lambda xp, x: xp.zeros_like(x), {"x": lambda g: _zeros_of(g)})


def _parse_to(args, kwargs):
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    fmt = check_format("to", kwargs.pop("memory_format", None))
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments: {sorted(kwargs)}")
    for a in args:
        if isinstance(a, dtypes.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, (str, Device, int)):
            device = Device(a)
        elif isinstance(a, bool):
            copy = a
        elif a is not None:
            raise TypeError(
                f"to() received an invalid combination of arguments - got ({type(a).__name__})"
            )
    return dtype, device, copy, fmt


@public(function=False)
def to(self, *args, **kwargs):
    """Matches `torch.Tensor.to`: returns itself when nothing changes (unless copy=True).

    `memory_format=torch.channels_last` lays the result out channels-last (Note [Memory
    formats])."""
    dtype, device, copy, fmt = _parse_to(args, dict(kwargs))
    if fmt is not None and fmt is not preserve_format:
        check_rank(self._data.ndim, fmt)
        if not is_contiguous_as(self._data, fmt):
            copy = True  # the new layout is a copy, made by clone below or by the cast
    out = self
    if device is not None:
        out = to_device(out, Device(device))
    if dtype is not None and dtype.np != out._data.dtype:
        out = apply(TO_COPY, (out,), {"dtype": dtype.np})
    elif copy and out is self:
        out = clone(self)
    if fmt is not None and fmt is not preserve_format and out is not self:
        out._data = in_format(out._data, fmt)
    return out


def _caster(name, dtype):
    def cast(self, memory_format=None):
        return (
            to(self, dtype)
            if memory_format is None
            else to(self, dtype, memory_format=memory_format)
        )

    cast.__name__ = name
    cast.__doc__ = f"Matches `torch.Tensor.{name}`: `self.to({dtype!r})`."
    public(cast, function=False)


for _name, _dtype in (
    ("float", dtypes.float32),
    ("double", dtypes.float64),
    ("half", dtypes.float16),
    ("bfloat16", dtypes.bfloat16),
    ("long", dtypes.int64),
    ("int", dtypes.int32),
    ("short", dtypes.int16),
    ("char", dtypes.int8),
    ("byte", dtypes.uint8),
    ("bool", dtypes.bool_),
    ("cfloat", dtypes.complex64),
    ("cdouble", dtypes.complex128),
):
    _caster(_name, _dtype)

# legacy type names -> dtypes; tensor_types.py adds the legacy type objects' names
LEGACY_NAMES = {f"torch.{d._legacy}Tensor": d for d in dtypes.DTYPES}


@public(function=False)
def type(self, dtype=None, non_blocking=False):
    """Matches `torch.Tensor.type`: the legacy name, or a cast to a dtype or legacy name."""
    if dtype is None:
        kind = "sparse." if self._data.__class__ is SparseCOO else ""  # (`type` is this function)
        return f"torch.{kind}{self.dtype._legacy}Tensor"
    if isinstance(dtype, str):
        if dtype not in LEGACY_NAMES:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = LEGACY_NAMES[dtype]
    elif isinstance(dtype, builtins.type) and isinstance(
        getattr(dtype, "dtype", None), dtypes.dtype
    ):
        dtype = dtype.dtype  # a legacy type: See Note [Legacy tensor types]
    return to(self, dtype)


@public(function=False)
def type_as(self, other):
    return to(self, other.dtype)


@public(function=False)
def cpu(self, memory_format=None):
    return to(self, "cpu")


@public(function=False)
def cuda(self, device=None, non_blocking=False, memory_format=None):
    return to(self, Device("cuda", device if isinstance(device, int) else None))


@public(function=False)
def copy_(self, src, non_blocking=False):
    """Matches `torch.Tensor.copy_`: broadcast and cast `src` into `self`."""
    if not isinstance(src, Tensor):
        raise TypeError(
            f"copy_(): argument 'other' (position 1) must be Tensor, not {src.__class__.__name__}"
        )
    return apply_inplace(COPY, (self, src), name="copy_")


@public
def fill_(self, value):
    """Matches `torch.Tensor.fill_`."""
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value._data.ndim} dimensions."
            )
        return apply_inplace(FILL_TENSOR, (self, value), name="fill_")
    value = fill_value(value, self.dtype)
    return apply_inplace(FILL, (self,), {"value": value}, name="fill_")


@public
def zero_(self):
    """Matches `torch.Tensor.zero_`."""
    return apply_inplace(ZERO, (self,), name="zero_")
