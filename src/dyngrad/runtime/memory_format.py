"""Memory formats (`torch.channels_last`, ...): how a dense tensor's elements lie in memory.

# Note [Memory formats]
# A NumPy array may have any strides, so channels-last is a real layout here, as in PyTorch:
# `contiguous(memory_format=torch.channels_last)` copies an NCHW tensor into NHWC order and
# keeps the NCHW shape, and `is_contiguous(memory_format=...)` reads the strides with
# PyTorch's rule (sizes of 1 do not count). Elementwise ops keep the layout of their input,
# as NumPy's do. Where dyngrad differs: ops that PyTorch runs channels-last throughout
# (convolutions, pooling, normalization) return ordinary contiguous tensors here.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "memory_format",
    "contiguous_format",
    "channels_last",
    "channels_last_3d",
    "preserve_format",
    "is_contiguous_as",
    "in_format",
    "check_format",
    "check_rank",
    "suggest_format",
    "like",
]


class memory_format:
    """Matches `torch.memory_format`."""

    __slots__ = ("_name", "_rank", "_order")

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torch.memory_format' instances")

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self):
        return (_by_name, (self._name,))


memory_format.__module__ = "torch"


def _format(name: str, rank: int | None, order: tuple | None) -> memory_format:
    f = object.__new__(memory_format)
    f._name = name
    f._rank = rank  # the rank a tensor needs for this layout (channels_last: 4)
    f._order = order  # the dims from the fastest-varying to the slowest
    return f


contiguous_format = _format("contiguous_format", None, None)
preserve_format = _format("preserve_format", None, None)
channels_last = _format("channels_last", 4, (1, 3, 2, 0))
channels_last_3d = _format("channels_last_3d", 5, (1, 4, 3, 2, 0))
_BY_NAME = {
    f._name: f for f in (contiguous_format, preserve_format, channels_last, channels_last_3d)
}


def _by_name(name: str) -> memory_format:
    return _BY_NAME[name]


def check_format(fn: str, value) -> memory_format | None:
    """PyTorch's TypeError for a `memory_format=` that is not one (None passes)."""
    if value is None or isinstance(value, memory_format):
        return value
    raise TypeError(
        f"{fn}(): argument 'memory_format' must be torch.memory_format, not {type(value).__name__}"
    )


def is_contiguous_as(array, fmt: memory_format | None) -> bool:
    """Whether `array`'s strides are those of `fmt` (PyTorch's rule: sizes of 1 are skipped)."""
    if fmt is None or fmt._order is None:
        return bool(array.flags.c_contiguous)
    if array.ndim != fmt._rank:
        return False
    expected = 1
    for d in fmt._order:
        size = array.shape[d]
        if size != 1:
            if array.strides[d] != expected * array.itemsize:
                return False
            expected *= size
    return True


def in_format(array, fmt: memory_format | None, xp=np):
    """`array` laid out in `fmt`: itself when it already is, else a copy in that layout.

    `preserve_format` (and None) keeps a channels-last array channels-last and makes anything
    else C-contiguous. Raises PyTorch's error for a layout the array's rank cannot have.
    """
    if fmt is None or fmt is preserve_format:
        fmt = suggest_format(array)
    if fmt._order is None:
        return xp.ascontiguousarray(array)
    check_rank(array.ndim, fmt)
    if is_contiguous_as(array, fmt):
        return array
    order = tuple(reversed(fmt._order))  # slowest first: (0, 2, 3, 1) for NCHW -> NHWC
    back = tuple(np.argsort(order))
    return xp.ascontiguousarray(array.transpose(order)).transpose(back)


def suggest_format(array) -> memory_format:
    """The layout `preserve_format` keeps: channels-last for an array that is channels-last
    and not also C-contiguous (a 1x1 image is both), else contiguous."""
    return next(
        (f for f in (channels_last, channels_last_3d) if _is_strictly(array, f)),
        contiguous_format,
    )


def like(new, source, fmt: memory_format | None, fn: str):
    """`new` (a fresh array of `source`'s shape) in the layout a `*_like(source,
    memory_format=fmt)` factory gives it."""
    fmt = check_format(fn, fmt)
    check_rank(source.ndim, fmt)
    if fmt is None or fmt is preserve_format:
        fmt = suggest_format(source)
    return new if fmt._order is None else in_format(new, fmt)


def check_rank(ndim: int, fmt: memory_format | None) -> None:
    """PyTorch's error for a layout a tensor of `ndim` dims cannot have."""
    if fmt is not None and fmt._rank is not None and ndim != fmt._rank:
        raise RuntimeError(f"required rank {fmt._rank} tensor to use {fmt._name} format")


def _is_strictly(array, fmt: memory_format) -> bool:
    # channels-last, and not merely also C-contiguous (a 1x1 image is both): the layout to keep
    return array.ndim == fmt._rank and not array.flags.c_contiguous and is_contiguous_as(array, fmt)
