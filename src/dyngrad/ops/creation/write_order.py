"""The order in which PyTorch's CPU kernels write a tensor: its memory order.

A random fill draws values one after another, and PyTorch's TensorIterator walks an output
in memory order (the axis with the smallest stride innermost), so `x.t().uniform_()` fills
`x`'s memory front to back. These helpers map a flat stream of draws onto an array in that
order, and read an array (the probabilities of `bernoulli_`) in it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["memory_axes", "dense_axes", "place", "read", "is_contiguous"]


def memory_axes(array: np.ndarray) -> list[int] | None:
    """The axes from outermost to innermost in memory, or None for C order."""
    if array.ndim < 2 or array.flags.c_contiguous:
        return None
    # sorted() is stable: axes of equal stride (size 1) keep their order
    axes = sorted(range(array.ndim), key=lambda d: -abs(array.strides[d]))
    return None if axes == list(range(array.ndim)) else axes


def dense_axes(array: np.ndarray) -> list[int] | None:
    """The memory order `empty_like` keeps: `array`'s own when its elements tile a block of
    memory (a transpose, say), else C order (None)."""
    axes = memory_axes(array)
    if axes is None:
        return None
    size = array.itemsize
    for d in reversed(axes):
        if array.shape[d] != 1 and array.strides[d] != size:
            return None
        size *= array.shape[d]
    return axes


def place(values: np.ndarray, like: np.ndarray, axes=False) -> np.ndarray:
    """`values` (flat, in write order) shaped as `like` (`axes`: an order found already)."""
    axes = memory_axes(like) if axes is False else axes
    if axes is None:
        return values.reshape(like.shape)
    return values.reshape([like.shape[d] for d in axes]).transpose(np.argsort(axes))


def read(array: np.ndarray, like: np.ndarray, axes=False) -> np.ndarray:
    """`array` (broadcast to `like`'s shape) flat, in `like`'s write order (`axes`: an order
    found already)."""
    array = np.broadcast_to(array, like.shape)
    axes = memory_axes(like) if axes is False else axes
    return (array if axes is None else array.transpose(axes)).ravel()


def is_contiguous(array: np.ndarray) -> bool:
    """PyTorch's `is_contiguous()`: C order (sizes of 1 and empty tensors aside)."""
    return bool(array.flags.c_contiguous)
