"""Tensors to and from checkpoint bytes, for every format: byte order, Parameters, devices."""

from __future__ import annotations

import sys

import numpy as np

from ._tensor import Tensor
from .backend.device import device as Device

__all__ = ["host_array", "little_endian", "from_little_endian", "restore_tensor"]


def host_array(t: Tensor) -> np.ndarray:
    data = t._data
    return data if isinstance(data, np.ndarray) else data.get()  # CuPy arrays copy to host


def little_endian(array: np.ndarray) -> np.ndarray:
    """`array` as contiguous little-endian data, ready to be written as bytes."""
    array = np.ascontiguousarray(array)
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    return array


def from_little_endian(raw, np_dtype: np.dtype) -> np.ndarray:
    """A writable array of `np_dtype` from little-endian bytes."""
    array = np.frombuffer(raw, dtype=np_dtype)
    if sys.byteorder == "big" and np_dtype.itemsize > 1:
        return array.byteswap()
    return array.copy()


def restore_tensor(
    array: np.ndarray, requires_grad: bool, parameter: bool, location: str, map_location
) -> Tensor:
    """A loaded array (owned, writable) as a tensor or Parameter where `map_location` says."""
    tensor = _place(Tensor._wrap(array), location, map_location)
    if parameter:
        try:
            from .nn import Parameter
        except ImportError:  # before the nn layer: a plain leaf that requires grad
            tensor._rg = bool(requires_grad)
            return tensor
        return Parameter(tensor, requires_grad=bool(requires_grad))
    tensor._rg = bool(requires_grad)
    return tensor


def _place(tensor: Tensor, location: str, map_location) -> Tensor:
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
        from .backend.transfer import cuda_available

        if not cuda_available():
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but "
                "torch.cuda.is_available() is False. If you are running on a CPU-only machine, "
                "please use torch.load with map_location=torch.device('cpu') to map your "
                "storages to the CPU."
            )
    if target.type == "cpu":
        return tensor
    from .backend.transfer import to_device

    return to_device(tensor, target)
