"""`torch.utils.dlpack` (also `torch.from_dlpack` / `torch.to_dlpack`): tensors in and out of
other array libraries without copying, through NumPy's DLPack support."""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..ops.creation.factories import from_numpy

__all__ = ["from_dlpack", "to_dlpack"]

_INVALID = (
    "from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed "
    "only once, so you might have already constructed a tensor from it once."
)


class _Capsule:
    """A DLPack capsule presented as a producer, which is what NumPy's importer takes."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU: a capsule from to_dlpack describes host memory


def from_dlpack(ext_tensor) -> Tensor:
    """Matches `torch.from_dlpack`: a tensor sharing the memory of any object with
    `__dlpack__` (a NumPy array, a PyTorch tensor, ...) or of a DLPack capsule."""
    if isinstance(ext_tensor, Tensor):
        return from_numpy(ext_tensor._data)
    if not hasattr(ext_tensor, "__dlpack__"):
        if type(ext_tensor).__name__ != "PyCapsule":
            raise RuntimeError(_INVALID)
        ext_tensor = _Capsule(ext_tensor)
    try:
        array = np.from_dlpack(ext_tensor)
    except (BufferError, RuntimeError, ValueError) as error:
        if isinstance(ext_tensor, _Capsule):
            raise RuntimeError(_INVALID) from error
        raise
    return from_numpy(array)


def to_dlpack(tensor: Tensor):
    """Matches `torch.to_dlpack`: a DLPack capsule of the tensor's memory (consumed once)."""
    # (PyTorch exports a tensor that requires grad here; only `__dlpack__` refuses it)
    data = tensor._data
    if not data.flags.writeable:  # DLPack's legacy capsule cannot say read-only: a copy
        data = data.copy()
    return data.__dlpack__()
