"""Tensors over memory given or laid out as asked: `torch.frombuffer` and
`torch.empty_permuted`."""

from __future__ import annotations

import warnings

import numpy as np

from ..._tensor import Tensor
from ...runtime.warn_always import warn_once
from ..table.surface import public
from .factories import REQUIRES_GRAD_DTYPE, _np_dtype, allocate

_NOT_WRITABLE = (
    "The given buffer is not writable, and PyTorch does not support non-writable tensors. "
    "This means you can write to the underlying (supposedly non-writable) buffer using the "
    "tensor. You may want to copy the buffer to protect its data or make it writable before "
    "converting it to a tensor. This type of warning will be suppressed for the rest of this "
    "program."
)


def _leaf(array, requires_grad: bool) -> Tensor:
    if requires_grad and array.dtype.kind not in "fcV":  # V: See Note [bfloat16 on demand]
        raise RuntimeError(REQUIRES_GRAD_DTYPE)
    return Tensor._wrap(array, bool(requires_grad))


def _count(length: int, itemsize: int, count: int, offset: int) -> int:
    """PyTorch's checks of count and offset (in its order and words); the element count."""
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
            f"({length} bytes) minus 1"
        )
    if count < 0 and (length - offset) % itemsize:
        raise ValueError(
            f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
            f"multiple of element size ({itemsize})"
        )
    if count < 0:
        count = (length - offset) // itemsize
    if length - offset < count * itemsize:
        raise ValueError(
            f"requested buffer length ({count} * {itemsize} bytes) after offset ({offset} "
            f"bytes) must not be greater than actual buffer length ({length} bytes)"
        )
    return count


@public(method=False)
def frombuffer(buffer, *, dtype, count: int = -1, offset: int = 0, requires_grad=False):
    """Matches `torch.frombuffer`: a 1-D tensor over the buffer's bytes, sharing its memory
    (writes to one show in the other). A read-only buffer (`bytes`) warns as PyTorch does;
    dyngrad then copies it, since NumPy will not write through read-only memory."""
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    writable = not view.readonly
    if not writable and warn_once("frombuffer read-only"):
        warnings.warn(_NOT_WRITABLE, UserWarning, stacklevel=2)
    np_dtype = np.dtype(_np_dtype(dtype))
    count = _count(view.nbytes, np_dtype.itemsize, int(count), int(offset))
    array = np.frombuffer(buffer, np_dtype, count, int(offset))
    return _leaf(array if writable else array.copy(), requires_grad)


def _physical_shape(size, physical_layout) -> tuple:
    size, layout = tuple(int(s) for s in size), tuple(int(d) for d in physical_layout)
    n = len(size)
    if n != len(layout):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; "
            f"i.e. len(size) = {n} is not equal to len(physical_layout) = {len(layout)}"
        )
    seen = set()
    for i, d in enumerate(layout):
        if not 0 <= d < n:
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {n - 1}, but got {d} "
                f"at index {i}).  NB: negative dims not currently supported; file an issue if "
                "you want it."
            )
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)
    return tuple(size[d] for d in layout), layout


@public(method=False)
def empty_permuted(
    size,
    physical_layout,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    """Matches `torch.empty_permuted`: a tensor of shape `size` whose memory holds its dims
    in the order `physical_layout` (outermost first); zero-filled, as dyngrad's `empty`."""
    physical, order = _physical_shape(size, physical_layout)
    array = allocate(physical, _np_dtype(dtype), np.zeros)
    return _leaf(array.transpose(np.argsort(order)), requires_grad)
