"""A torch.save zip's records: its pickle found, each storage read (or mapped) once, tensors."""

from __future__ import annotations

import struct
import sys
from typing import TYPE_CHECKING

import numpy as np

from ._checkpoint_names import StorageType
from ._checkpoint_tensors import as_leaf, from_bytes, place_storage, strided_view
from ._tensor import Tensor
from .runtime import dtypes
from .runtime.device import device as Device

if TYPE_CHECKING:  # zipfile (and the pathlib it loads) is imported by load and save
    import zipfile

__all__ = ["Storage", "Records", "locate_pickle"]

# Note [Reading torch.save files]
# `torch.save` writes a zip: `<name>/data.pkl` pickles the object, with each tensor's storage
# replaced by a persistent id ('storage', <dtype>Storage, key, location, numel) whose bytes
# are `<name>/data/<key>`. By default the pickle is run by the interpreter of Note
# [Untrusted pickles] (_torch_checkpoint.py): names resolve to dyngrad's own stand-ins
# (PyTorch's `weights_only` allowlist, give or take), each callable checks its arguments, and
# nothing is imported or called by name unless the user allowed it (`add_safe_globals`).
# `weights_only=False` runs it with pickle itself (_checkpoint_trusted.py), torch's names
# read as dyngrad's. Either way the storages are these Records: as in torch, each storage is
# read once and its tensors are views of it, so tensors that shared memory when saved share
# it when loaded, and an expanded (stride 0) tensor stays a view, however large it says it
# is. A view must fit in its storage, which must be exactly as large as its record; both are
# checked before anything is allocated. With `mmap=True` a stored record's array is the file's
# own bytes, mapped copy-on-write (as torch's MAP_PRIVATE): nothing is read until used.

_STORED = 0  # zipfile.ZIP_STORED
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, ..., file name length, extra length


class Storage:
    """One storage of this load: its array, already where `map_location` puts it."""

    def __init__(self, array, dtype: dtypes.dtype, numel: int) -> None:
        self.array, self.dtype, self.numel = array, dtype, numel


def locate_pickle(archive: zipfile.ZipFile, name: str) -> tuple[bytes, str, str]:
    """(data.pkl's bytes, the records' prefix, their byte order) of a torch.save zip."""
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
        byteorder = archive.read(prefix + "byteorder").decode("ascii", "replace")
        if byteorder not in ("little", "big"):
            raise RuntimeError(
                f"Unknown endianness type: {byteorder[:20]!r}. {name} is corrupt: its "
                "byteorder record must say little or big."
            )
    return archive.read(pickles[0]), prefix, byteorder


class Records:
    """The storages and tensors of one load; `errors` makes its unpickler's errors."""

    def __init__(self, archive: zipfile.ZipFile, prefix: str, errors, **how) -> None:
        self.archive, self.prefix, self.errors = archive, prefix, errors
        self.name = errors.name
        self.map_location, self.byteorder = how["map_location"], how["byteorder"]
        self.mapped = how.get("mapped")  # the file's bytes, memory-mapped (mmap=True)
        self.storages: dict[str, Storage] = {}

    def storage(self, pid) -> Storage:
        """The storage a persistent id names, read the first time it is named."""
        if type(pid) is not tuple or len(pid) != 5 or pid[0] != "storage":
            what = self.errors.describe(pid[0] if type(pid) is tuple and pid else pid)
            raise self.errors.refused(f"Only persistent_load of storage is allowed, but got {what}")
        _, storage_type, key, location, numel = pid
        if not isinstance(storage_type, StorageType):
            raise self.errors.refused(f"unknown storage type {self.errors.describe(storage_type)}")
        dtype = storage_type.dtype
        if type(key) is not str or type(location) is not str or type(numel) is not int:
            fields = ", ".join(self.errors.describe(field) for field in pid)
            raise self.errors.corrupt(f"a storage's persistent id holds ({fields})")
        try:
            Device(location)
        except (RuntimeError, ValueError):
            raise self.errors.corrupt(
                f"storage {key} was saved on {location!r}, not a device"
            ) from None
        storage = self.storages.get(key)
        if storage is None:
            storage = self.storages[key] = self.read_storage(dtype, key, location, numel)
        elif (storage.dtype, storage.numel) != (dtype, numel):
            raise self.errors.corrupt(f"storage {key} is used with two different types or sizes")
        return storage

    def read_storage(self, dtype: dtypes.dtype, key: str, location: str, numel: int) -> Storage:
        record = f"{self.prefix}data/{key}"
        try:
            info = self.archive.getinfo(record)
        except KeyError:
            raise RuntimeError(
                f"PytorchStreamReader failed locating file data/{key}: file not found "
                f"({self.name} is corrupt)"
            ) from None
        if numel < 0 or info.file_size != numel * dtype.itemsize:  # checked before reading
            raise RuntimeError(
                f"record size ({info.file_size} bytes) does not match expected size "
                f"({numel * dtype.itemsize} bytes = {numel} elements * {dtype.itemsize} "
                f"bytes/element) for dtype {dtype._legacy} ({self.name} is corrupt: data/{key})"
            )
        if self.mapped is not None and info.compress_type == _STORED:
            array = self.mapped_array(info, dtype.np, numel)
        else:
            array = from_bytes(self.archive.read(record), dtype.np, self.byteorder)
        return Storage(place_storage(array, location, self.map_location), dtype, numel)

    def mapped_array(self, info: zipfile.ZipInfo, np_dtype: np.dtype, numel: int):
        """A stored record's elements as a view of the mapped file (a copy if byte-swapped)."""
        header = self.mapped[info.header_offset : info.header_offset + _LOCAL_HEADER.size]
        if len(header) != _LOCAL_HEADER.size or header[:4] != b"PK\x03\x04":
            raise RuntimeError(f"{self.name} is corrupt: {info.filename} has no local header")
        _, name_length, extra_length = _LOCAL_HEADER.unpack(header)
        start = info.header_offset + _LOCAL_HEADER.size + name_length + extra_length
        if start + info.file_size > len(self.mapped):
            raise RuntimeError(f"{self.name} is corrupt: {info.filename} is truncated")
        array = np.frombuffer(self.mapped, np_dtype, count=numel, offset=start)
        return array if self.byteorder == sys.byteorder else array.byteswap()

    def tensor(self, storage, storage_offset, size, stride, requires_grad=False) -> Tensor:
        if not isinstance(storage, Storage):
            raise self.errors.corrupt(f"a tensor's storage is a {type(storage).__name__}")
        view = strided_view(storage.array, storage_offset, size, stride, self.name)
        return as_leaf(Tensor._wrap(view), requires_grad is True, False)

    def parameter(self, data, requires_grad=True) -> Tensor:
        if not isinstance(data, Tensor):
            raise self.errors.corrupt(f"a Parameter's data is a {type(data).__name__}")
        return as_leaf(data, requires_grad is True, True)
