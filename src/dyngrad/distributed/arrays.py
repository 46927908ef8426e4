"""Tensors as MPI buffers: the one place that reaches a tensor's array.

# Note [Collective buffers]
# Collectives write into a tensor's storage in place, as torch's do, and like torch's c10d ops
# they do not bump its version counter (a parameter that requires grad can be all-reduced).
# `array(t)` is the only access to a tensor's NumPy array. MPI needs C-contiguous buffers of
# types it knows: `staged` hands out the array itself when it can, else a contiguous copy
# (converted for reductions: bfloat16 to float32, bool to uint8, complex viewed as real
# pairs), and `Staged.finish` writes the result back.
"""

from __future__ import annotations

import numpy as np

from ..ops.creation.factories import from_numpy

__all__ = ["array", "staged", "byte_view", "Staged", "tensor_of"]


def array(t) -> np.ndarray:
    """The NumPy array under tensor `t` (a view sharing its storage)."""
    return t._data


def tensor_of(values: np.ndarray):
    """A tensor sharing the array `values`."""
    return from_numpy(values)


class Staged:
    """A contiguous MPI-ready array standing in for a tensor's array until `finish()`."""

    __slots__ = ("target", "buffer", "converted")

    def __init__(self, target: np.ndarray, buffer: np.ndarray, converted: bool = False) -> None:
        self.target, self.buffer = target, buffer
        self.converted = converted  # values converted (bfloat16 as float32), not reinterpreted

    def finish(self) -> None:
        """Copy the buffer's values back into the tensor, unless they are the tensor's own."""
        if np.shares_memory(self.buffer, self.target):
            return
        if self.converted:
            values = self.buffer.astype(self.target.dtype)
        else:
            values = self.buffer.view(self.target.dtype)
        self.target[...] = values.reshape(self.target.shape)


def staged(t, reducing: bool = False) -> Staged:
    """`t`'s array as a flat contiguous buffer; for a reduction, in a type MPI reduces."""
    target = array(t)
    buffer = target if target.flags.c_contiguous else np.ascontiguousarray(target)
    converted = False
    if reducing:
        kind = target.dtype
        if kind.name == "bfloat16":  # MPI has no bfloat16 type
            buffer, converted = buffer.astype(np.float32), True
        elif kind == np.bool_:  # reduced as 0/1 bytes: SUM is MAX (or), PRODUCT is MIN (and)
            buffer = buffer.view(np.uint8)
        elif kind.kind == "c":  # as torch does, a complex number is two reals here
            buffer = buffer.view(np.float32 if kind == np.complex64 else np.float64)
    return Staged(target, buffer.reshape(-1), converted)


def byte_view(t) -> Staged:
    """`t`'s array as contiguous bytes, for moving data of any dtype."""
    target = array(t)
    buffer = target if target.flags.c_contiguous else np.ascontiguousarray(target)
    return Staged(target, buffer.reshape(-1).view(np.uint8))
