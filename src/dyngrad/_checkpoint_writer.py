"""`save` in PyTorch's own format: the zip `torch.save` writes, with torch's names in its pickle."""

from __future__ import annotations

import io
import os
import pickle
import struct
import sys
from collections import OrderedDict

import numpy as np

from ._checkpoint_tensors import host_array
from ._tensor import Tensor
from .nn.parameter import Parameter
from .runtime.device import device as Device
from .runtime.dtypes import dtype as DType
from .size import Size

__all__ = ["pickle_checkpoint", "write_checkpoint", "archive_name"]

# Note [Writing torch.save files]
# `save` writes what `torch.save` (2.x) writes, so that PyTorch loads a dyngrad checkpoint
# (with `weights_only=True`) and dyngrad reads its own through the reader it uses for
# PyTorch's (Note [Reading torch.save files]):
#   - a zip of stored (uncompressed) records `<archive>/...`, <archive> being the file's name
#     up to its last dot ("archive" for a file object): data.pkl, .format_version,
#     .storage_alignment, byteorder, data/<key> for each storage, version and
#     .data/serialization_id, in torch's order. Each record's bytes start at a multiple of 64
#     in the file (its local header's extra field, id "FB", pads it, as torch's writer does),
#     so that `torch.load(mmap=True)` and `load(mmap=True)` can map storages in place.
#   - data.pkl pickles the object (protocol 2 by default, as torch) with torch's names for
#     dyngrad's objects: a tensor is `torch._utils._rebuild_tensor_v2(storage, offset, size,
#     stride, requires_grad, OrderedDict())`, a Parameter `torch._utils._rebuild_parameter(data,
#     requires_grad, OrderedDict())`, dtypes, Size and device are `torch.float32`,
#     `torch.Size(...)`, `torch.device(...)`, and a storage is the persistent id
#     ('storage', torch.<Legacy>Storage, key, location, numel). These names are written, never
#     looked up: the pickler is the Python one (`pickle._Pickler`), given a `dispatch` entry
#     for them, since the C pickler insists on importing every global it writes (torch).
#   - A storage is the NumPy memory a tensor views: tensors that view one array (a view and
#     its base, a Parameter and its state_dict entry) share one record, and share memory once
#     loaded, in torch as in dyngrad. As in torch, a view saves its whole base. A tensor whose
#     elements are not a plain strided block of that memory (another dtype, negative strides)
#     is saved as its own storage.
# Anything else is pickled as pickle pickles it: a whole Module names its class by module
# path (`dyngrad.nn.modules.linear.Linear`, `__main__.Net`), which is why `load` refuses it
# unless told to trust the file (Note [Untrusted pickles]).

_ALIGNMENT = 64
_PAD_ID = b"FB"  # the extra field torch's writer pads local headers with
_LOCAL_HEADER = 30  # bytes before a local header's file name
_ZIP64_EXTRA = 20  # what zipfile appends to a local header's extra field for a zip64 record


class _TorchName:
    """A global of torch's namespace, as the pickle names it (never looked up here)."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle's save_reduce asks for a callable; nothing calls it
        raise TypeError(f"{self.module}.{self.name} is only a name written into a checkpoint")


_NAMES: dict[tuple[str, str], _TorchName] = {}


def _torch_name(module: str, name: str) -> _TorchName:
    key = (module, name)
    if key not in _NAMES:  # one object per name: the pickle memoizes it, as torch's does
        _NAMES[key] = _TorchName(module, name)
    return _NAMES[key]


_REBUILD_TENSOR = _torch_name("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _torch_name("torch._utils", "_rebuild_parameter")
_SIZE = _torch_name("torch", "Size")
_DEVICE = _torch_name("torch", "device")


class _Storage:
    """One storage record: the memory of a NumPy array, in memory order."""

    __slots__ = ("key", "flat", "persistent_id")

    def __init__(self, key: str, owner: np.ndarray, location: str, legacy: str) -> None:
        self.key = key
        self.flat = owner.ravel(order="K")  # a view: the owner is one contiguous block
        storage_type = _torch_name("torch", f"{legacy}Storage")
        self.persistent_id = ("storage", storage_type, key, location, int(owner.size))


def _save_torch_name(pickler, obj: _TorchName) -> None:
    if pickler.proto >= 4:
        pickler.save(obj.module)
        pickler.save(obj.name)
        pickler.write(pickle.STACK_GLOBAL)
    else:
        pickler.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
    pickler.memoize(obj)


def _save_dtype(pickler, obj: DType) -> None:
    pickler.save(_torch_name("torch", obj.name))


class _CheckpointPickler(pickle._Pickler):
    """Pickles with torch's names for dyngrad's objects; storages go to `self.storages`."""

    dispatch = pickle._Pickler.dispatch.copy()
    dispatch[_TorchName] = _save_torch_name
    dispatch[DType] = _save_dtype

    def __init__(self, file, protocol: int) -> None:
        super().__init__(file, protocol)
        self.storages: dict[int, _Storage] = {}  # id of the owning array -> its record
        self.owners: list[np.ndarray] = []  # keeps each owner alive, so ids stay unique

    def persistent_id(self, obj):
        return obj.persistent_id if type(obj) is _Storage else None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            if isinstance(obj, Parameter):
                data = Tensor._wrap(obj._data)  # torch pickles `param.data`
                return _REBUILD_PARAMETER, (data, obj.requires_grad, OrderedDict())
            return _REBUILD_TENSOR, (*self.tensor_geometry(obj), obj.requires_grad, OrderedDict())
        if type(obj) is Size:
            return _SIZE, (tuple(obj),)
        if type(obj) is Device:
            return _DEVICE, (obj.type,) if obj.index is None else (obj.type, obj.index)
        return NotImplemented

    def tensor_geometry(self, t: Tensor) -> tuple:
        """(storage, storage offset, size, stride) of `t`, its storage recorded once."""
        array = t._data
        location = str(t.device)
        if isinstance(array, np.ndarray):
            owner = _memory_owner(array)
            placed = _place_in(array, owner)
            if placed is not None:
                return (self.storage(owner, location, t.dtype._legacy), *placed)
        else:  # a CuPy array: copied to the host, its own storage
            array = host_array(t)
        owner = np.ascontiguousarray(array)
        return self.storage(owner, location, t.dtype._legacy), 0, owner.shape, _strides(owner.shape)

    def storage(self, owner: np.ndarray, location: str, legacy: str) -> _Storage:
        record = self.storages.get(id(owner))
        if record is None:
            record = self.storages[id(owner)] = _Storage(
                str(len(self.storages)), owner, location, legacy
            )
            self.owners.append(owner)
        return record


def _strides(shape: tuple) -> tuple:
    """A C-contiguous tensor's strides, as torch gives them (an empty one's too)."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _memory_owner(array: np.ndarray) -> np.ndarray:
    """The array at the root of `array`'s chain of views (what torch calls its storage)."""
    while True:
        base = array.base
        if isinstance(base, np.ndarray):
            array = base
        elif isinstance(getattr(base, "base", None), np.ndarray):  # as_strided's wrapper
            array = base.base
        else:
            return array


def _place_in(array: np.ndarray, owner: np.ndarray) -> tuple | None:
    """(offset, size, stride) of `array`'s elements inside `owner`'s memory, in elements."""
    itemsize = array.itemsize
    if array.dtype != owner.dtype or array.size == 0:
        return None
    if not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        return None  # memory not one block (an array over a foreign buffer)
    start = array.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    strides = []
    for n, step in zip(array.shape, array.strides):
        if n > 1 and (step < 0 or step % itemsize):
            return None
        strides.append(step // itemsize if n > 1 else max(step, 0) // itemsize)
    if start < 0 or start % itemsize:
        return None
    offset = start // itemsize
    last = offset + sum((n - 1) * s for n, s in zip(array.shape, strides))
    if last >= owner.size:
        return None
    return offset, array.shape, tuple(strides)


def pickle_checkpoint(obj, protocol: int = 2) -> tuple[bytes, list]:
    """data.pkl's bytes for `obj`, and the storages it refers to."""
    if not 2 <= protocol <= pickle.HIGHEST_PROTOCOL:
        raise ValueError(
            f"dyngrad.save writes pickle protocols 2 to {pickle.HIGHEST_PROTOCOL} (as torch.save "
            f"reads them back), not {protocol}"
        )
    buffer = io.BytesIO()
    pickler = _CheckpointPickler(buffer, protocol)
    pickler.dump(obj)
    return buffer.getvalue(), list(pickler.storages.values())


def archive_name(path) -> str:
    """The folder torch.save names its records under: the file's name up to its last dot."""
    if path is None:
        return "archive"
    name = os.path.basename(os.fspath(path))
    stem = name[: name.rfind(".")] if "." in name else name
    return stem or "archive"


def write_checkpoint(out, name: str, pickled: bytes, storages: list) -> None:
    """Writes the zip of Note [Writing torch.save files] to the binary file `out`."""
    import zipfile  # here, not at `import dyngrad`: with the pathlib it loads, 10 ms

    serialization_id = f"{int.from_bytes(os.urandom(17), 'big') % 10**40:040d}"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        _record(archive, f"{name}/data.pkl", pickled)
        _record(archive, f"{name}/.format_version", b"1")
        _record(archive, f"{name}/.storage_alignment", str(_ALIGNMENT).encode())
        _record(archive, f"{name}/byteorder", sys.byteorder.encode())
        for storage in storages:
            raw = np.ascontiguousarray(storage.flat).view(np.uint8)
            _record(archive, f"{name}/data/{storage.key}", memoryview(raw))
        _record(archive, f"{name}/version", b"3\n")
        _record(archive, f"{name}/.data/serialization_id", serialization_id.encode())


def _record(archive, name: str, data) -> None:
    import zipfile  # loaded by write_checkpoint already

    size = memoryview(data).nbytes
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.file_size = size
    zip64 = size * 1.05 > zipfile.ZIP64_LIMIT  # the test zipfile applies to a record's size
    header = _LOCAL_HEADER + len(name.encode()) + 4 + (_ZIP64_EXTRA if zip64 else 0)
    pad = -(archive.fp.tell() + header) % _ALIGNMENT
    info.extra = _PAD_ID + struct.pack("<H", pad) + b"Z" * pad
    with archive.open(info, "w", force_zip64=zip64) as dest:
        dest.write(data)
