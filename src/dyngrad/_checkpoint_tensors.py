"""Tensors to and from checkpoint bytes, for every format: byte order, Parameters, devices."""

from __future__ import annotations

import math
import sys

import numpy as np

from ._tensor import Tensor
from .nn.parameter import Parameter
from .runtime import namespace
from .runtime.device import device as Device
from .runtime.sparse_coo import SparseCOO
from .runtime.transfer import cuda_available, to_device

__all__ = [
    "host_array",
    "from_bytes",
    "restore_tensor",
    "place_storage",
    "as_leaf",
    "place",
    "strided_view",
]

_MAX_DIMS = 64  # NumPy's limit


SPARSE_SAVE = (
    "dyngrad cannot save sparse COO tensors (PyTorch can): save t.coalesce().indices() and "
    "t.coalesce().values() with the size and rebuild it with torch.sparse_coo_tensor, or save "
    "t.to_dense()"
)


def host_array(t: Tensor) -> np.ndarray:
    data = t._data
    if type(data) is SparseCOO:
        raise NotImplementedError(SPARSE_SAVE)
    return data if isinstance(data, np.ndarray) else data.get()  # CuPy arrays copy to host


def from_bytes(raw, np_dtype: np.dtype, byteorder: str = "little") -> np.ndarray:
    """A writable, native-order array of `np_dtype` from raw bytes stored in `byteorder`."""
    array = np.frombuffer(raw, dtype=np_dtype)
    if byteorder != sys.byteorder and np_dtype.itemsize > 1:
        return array.byteswap()  # a copy
    return array.copy()


def restore_tensor(
    array: np.ndarray, requires_grad: bool, parameter: bool, location: str, map_location
) -> Tensor:
    """A loaded array (owned, writable) as a tensor or Parameter where `map_location` says."""
    return as_leaf(place(Tensor._wrap(array), location, map_location), requires_grad, parameter)


def place_storage(array: np.ndarray, location: str, map_location):
    """A storage's array moved where `map_location` says (a callable gets it as a 1-D tensor)."""
    placed = place(Tensor._wrap(array), location, map_location)._data
    if placed.shape != array.shape or placed.dtype != array.dtype:
        raise RuntimeError(
            f"map_location returned a storage of shape {tuple(placed.shape)} and dtype "
            f"{placed.dtype} for one of shape {array.shape} and dtype {array.dtype}: it must "
            "return the storage it was given, moved or copied"
        )
    return placed


def as_leaf(tensor: Tensor, requires_grad: bool, parameter: bool) -> Tensor:
    """`tensor` as the leaf (or Parameter) a checkpoint describes."""
    if requires_grad and not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    if parameter:
        return Parameter(tensor, requires_grad=bool(requires_grad))
    tensor._requires_grad = bool(requires_grad)
    return tensor


def place(tensor: Tensor, location: str, map_location) -> Tensor:
    # As torch.load: a callable gets (tensor, saved location) and returns the tensor to use,
    # or None for the default; a dict maps saved locations; anything else is the device.
    if callable(map_location) and not isinstance(map_location, (str, Device)):
        result = map_location(tensor, location)
        if isinstance(result, Tensor):
            return result
        target = location if result is None else result
    elif isinstance(map_location, dict):
        target = map_location.get(location, location)
    else:
        target = location if map_location is None else map_location
    target = Device(target)
    if target.type == "cuda":
        if not cuda_available():
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but "
                "torch.cuda.is_available() is False. If you are running on a CPU-only machine, "
                "please use torch.load with map_location=torch.device('cpu') to map your "
                "storages to the CPU."
            )
    if target.type == "cpu":
        return tensor

    return to_device(tensor, target)


def strided_view(storage, offset, size, stride, name: str):
    """A tensor's elements as a view of its storage (a 1-D array), refused unless inside it."""
    itemsize = storage.dtype.itemsize
    size, stride = _geometry(offset, size, stride, itemsize, name)
    if 0 in size:
        return namespace(storage).empty(size, dtype=storage.dtype)
    extent = offset + sum((n - 1) * st for n, st in zip(size, stride)) + 1
    if extent > storage.size:  # checked before the view exists: nothing is read or allocated
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {extent * itemsize} are out "
            f"of bounds for storage of size {storage.size * itemsize} ({name} is corrupt)"
        )
    strides = tuple(st * itemsize for st in stride)  # (a size-1 dim keeps its stride)
    xp = namespace(storage)
    view = xp.lib.stride_tricks.as_strided(storage[offset:], size, strides)
    if xp is np and any(n > 1 and st == 0 for n, st in zip(size, stride)):
        view.flags.writeable = False  # an expanded tensor: in-place ops refuse, as torch's do
    return view


def _geometry(offset, size, stride, itemsize: int, name: str) -> tuple[tuple, tuple]:
    sizes, strides = _ints(size), _ints(stride)
    problem = None
    if sizes is None or strides is None or type(offset) is not int:
        problem = "its storage offset, sizes and strides must be ints"
    elif len(sizes) != len(strides) or len(sizes) > _MAX_DIMS:
        problem = f"it has {len(sizes)} sizes, {len(strides)} strides (at most {_MAX_DIMS})"
    elif offset < 0 or min((*sizes, *strides), default=0) < 0:
        problem = "its storage offset, sizes and strides must be non-negative"
    elif max((math.prod(sizes), *sizes, *strides)) * itemsize > sys.maxsize:
        problem = "it spans more bytes than any array can (even as a view)"
    if problem is not None:
        shown = [v if _ints(v) is not None else f"<{type(v).__name__}>" for v in (size, stride)]
        raise RuntimeError(
            f"{name} is corrupt: a tensor of sizes {shown[0]}, strides {shown[1]} and storage "
            f"offset {offset if type(offset) is int else type(offset).__name__}: {problem}"
        )
    return sizes, strides


def _ints(values) -> tuple | None:
    if not isinstance(values, (tuple, list)) or not all(type(v) is int for v in values):
        return None
    return tuple(values)
