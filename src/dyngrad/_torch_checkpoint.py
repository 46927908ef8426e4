"""PyTorch's zip checkpoints read without torch: an unpickler that rebuilds only data."""

from __future__ import annotations

import codecs
import io
import pickle
import zipfile
from collections import OrderedDict

import numpy as np

from ._checkpoint_tensors import from_little_endian, restore_tensor
from .backend import dtypes
from .backend.device import device as Device
from .size import Size

__all__ = ["load_torch_checkpoint"]

# Note [Reading torch.save files]
# `torch.save` writes a zip: `<name>/data.pkl` pickles the object, with each tensor's storage
# replaced by a persistent id ('storage', <dtype>Storage, key, location, numel) whose bytes
# are `<name>/data/<key>`. A pickle may name any global and call it, so the unpickler below
# resolves only the names that rebuild tensors, parameters, dtypes, devices, sizes and
# containers (PyTorch's `weights_only` list, give or take), each to dyngrad's own function;
# any other name is refused before anything is called.

_STORAGE_DTYPES = {
    "FloatStorage": dtypes.float32,
    "DoubleStorage": dtypes.float64,
    "HalfStorage": dtypes.float16,
    "BFloat16Storage": dtypes.bfloat16,
    "LongStorage": dtypes.int64,
    "IntStorage": dtypes.int32,
    "ShortStorage": dtypes.int16,
    "CharStorage": dtypes.int8,
    "ByteStorage": dtypes.uint8,
    "BoolStorage": dtypes.bool_,
    "ComplexFloatStorage": dtypes.complex64,
    "ComplexDoubleStorage": dtypes.complex128,
    "UntypedStorage": dtypes.uint8,
}


class _StorageType:
    def __init__(self, dtype: dtypes.dtype) -> None:
        self.dtype = dtype


class _Storage:
    def __init__(self, array: np.ndarray, location: str) -> None:
        self.array = array
        self.location = location


class _TensorType:
    """What `torch.Tensor` and `torch.nn.Parameter` stand for inside a checkpoint."""

    def __init__(self, parameter: bool) -> None:
        self.parameter = parameter


def _numpy_dtype(*args):
    dtype = np.dtype(*args)
    if dtype.kind == "O":
        raise pickle.UnpicklingError("refusing a NumPy object dtype in a checkpoint")
    return dtype


def _numpy_scalar(dtype, data=None):
    if not isinstance(dtype, np.dtype) or dtype.kind in "OV" or not isinstance(data, bytes):
        raise pickle.UnpicklingError("refusing a NumPy scalar that is not plain data")
    return np.frombuffer(data, dtype=dtype)[0]


def _safe_builtins() -> dict:
    allowed = {
        "collections.OrderedDict": OrderedDict,
        "builtins.set": set,
        "builtins.frozenset": frozenset,
        "builtins.complex": complex,
        "builtins.bytearray": bytearray,
        "builtins.slice": slice,
        "_codecs.encode": codecs.encode,
        "torch.Size": Size,
        "torch.device": Device,
        "torch.Tensor": _TensorType(False),
        "torch._tensor.Tensor": _TensorType(False),
        "torch.nn.parameter.Parameter": _TensorType(True),
        "numpy.dtype": _numpy_dtype,
        "numpy.core.multiarray.scalar": _numpy_scalar,
        "numpy._core.multiarray.scalar": _numpy_scalar,
    }
    for name, dtype in _STORAGE_DTYPES.items():
        allowed[f"torch.{name}"] = _StorageType(dtype)
    for name, dtype in {**dtypes._BY_NAME, "bool": dtypes.bool_}.items():
        allowed[f"torch.{name}"] = dtype
    return allowed


_ALLOWED = _safe_builtins()


class _Unpickler(pickle.Unpickler):
    def __init__(
        self,
        data: bytes,
        archive: zipfile.ZipFile,
        prefix: str,
        name: str,
        map_location,
        byteorder: str,
    ) -> None:
        super().__init__(io.BytesIO(data))
        self.archive, self.prefix, self.name = archive, prefix, name
        self.map_location, self.byteorder = map_location, byteorder
        self.storages: dict[str, _Storage] = {}
        self.rebuilders = {
            "torch._utils._rebuild_tensor_v2": self.rebuild_tensor,
            "torch._utils._rebuild_tensor": self.rebuild_tensor,
            "torch._utils._rebuild_parameter": self.rebuild_parameter,
            "torch._utils._rebuild_parameter_with_state": self.rebuild_parameter,
            "torch._tensor._rebuild_from_type_v2": self.rebuild_from_type,
        }

    def find_class(self, module: str, name: str):
        key = f"{module}.{name}"
        found = self.rebuilders.get(key, _ALLOWED.get(key))
        if found is None:
            raise pickle.UnpicklingError(
                f"Weights only load failed. {self.name} refers to `{key}`, which dyngrad does "
                "not load: from PyTorch checkpoints dyngrad rebuilds tensors, parameters and "
                "plain containers only, and never runs code stored in a file (whatever "
                "`weights_only` says). Save a state_dict (`model.state_dict()`) instead of "
                "objects of your own classes."
            )
        return found

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        _, storage_type, key, location, numel = pid
        if not isinstance(storage_type, _StorageType):
            raise pickle.UnpicklingError(f"unknown storage type {storage_type!r}")
        if key not in self.storages:
            raw = self.archive.read(f"{self.prefix}data/{key}")
            np_dtype = storage_type.dtype.np
            if len(raw) < numel * np_dtype.itemsize:
                raise pickle.UnpicklingError(
                    f"storage {key} holds {len(raw)} bytes, {numel * np_dtype.itemsize} needed"
                )
            raw = raw[: numel * np_dtype.itemsize]
            array = (
                from_little_endian(raw, np_dtype)
                if self.byteorder == "little"
                else np.frombuffer(raw, dtype=np_dtype.newbyteorder(">")).astype(np_dtype)
            )
            self.storages[key] = _Storage(array, str(location))
        return self.storages[key]

    def rebuild_tensor(
        self,
        storage,
        storage_offset,
        size,
        stride,
        requires_grad=False,
        backward_hooks=None,
        metadata=None,
    ):
        if not isinstance(storage, _Storage):
            raise pickle.UnpicklingError("a tensor without a storage")
        array = _strided_copy(storage.array, int(storage_offset), tuple(size), tuple(stride))
        return restore_tensor(
            array, bool(requires_grad), False, storage.location, self.map_location
        )

    def rebuild_parameter(self, data, requires_grad, backward_hooks, state=None):
        return _as_parameter(data, requires_grad)

    def rebuild_from_type(self, func, new_type, args, state):
        tensor = func(*args)
        if isinstance(new_type, _TensorType) and new_type.parameter:
            return _as_parameter(tensor, tensor.requires_grad)
        return tensor


def _strided_copy(base: np.ndarray, offset: int, size: tuple, stride: tuple) -> np.ndarray:
    if len(size) != len(stride) or any(s < 0 for s in size + stride):
        raise pickle.UnpicklingError(f"bad tensor geometry: size {size}, stride {stride}")
    if any(s == 0 for s in size):
        return np.empty(size, dtype=base.dtype)
    last = offset + sum((n - 1) * st for n, st in zip(size, stride))
    if offset < 0 or last >= base.size:
        raise pickle.UnpicklingError(
            f"a tensor of size {size} reaches element {last} of a storage of {base.size}"
        )
    strides = tuple(st * base.itemsize for st in stride)
    view = np.lib.stride_tricks.as_strided(
        base[offset:], shape=size, strides=strides, writeable=False
    )
    return np.array(view)  # a compact copy: tensors that shared a storage no longer do


def _as_parameter(tensor, requires_grad: bool):
    try:
        from .nn import Parameter
    except ImportError:  # before the nn layer: a leaf that requires grad stands in
        tensor._rg = bool(requires_grad)
        return tensor
    return Parameter(tensor, requires_grad=bool(requires_grad))


def load_torch_checkpoint(archive: zipfile.ZipFile, name: str, map_location):
    """The object a `torch.save` zip holds, rebuilt with dyngrad tensors."""
    names = archive.namelist()
    pickles = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
    if not pickles:
        what = (
            "a TorchScript archive (torch.jit.save): load it with PyTorch"
            if any(n.endswith("constants.pkl") for n in names)
            else "a zip archive without data.pkl"
        )
        raise RuntimeError(f"{name} is not a torch.save checkpoint: it is {what}.")
    prefix = pickles[0][: -len("data.pkl")]
    byteorder = "little"
    if prefix + "byteorder" in names:
        byteorder = archive.read(prefix + "byteorder").decode().strip()
    unpickler = _Unpickler(archive.read(pickles[0]), archive, prefix, name, map_location, byteorder)
    return unpickler.load()
