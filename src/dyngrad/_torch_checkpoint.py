"""PyTorch's zip checkpoints read without torch: names allowed, storages, tensors rebuilt."""

from __future__ import annotations

import zipfile
from collections import Counter, OrderedDict
from dataclasses import dataclass

import numpy as np

from ._checkpoint_pickle import RestrictedUnpickler
from ._checkpoint_tensors import as_leaf, from_bytes, place_storage, strided_view
from ._tensor import Tensor
from .runtime import dtypes
from .runtime.device import device as Device
from .size import Size

__all__ = ["load_torch_checkpoint"]

# Note [Reading torch.save files]
# `torch.save` writes a zip: `<name>/data.pkl` pickles the object, with each tensor's storage
# replaced by a persistent id ('storage', <dtype>Storage, key, location, numel) whose bytes
# are `<name>/data/<key>`. The pickle is run by the interpreter of Note [Untrusted pickles]:
# names resolve to dyngrad's own stand-ins (PyTorch's `weights_only` allowlist, give or take),
# each callable checks its arguments, and nothing is ever imported or called by name.
# As in torch, each storage is read once and its tensors are views of it: tensors that
# shared memory when saved share it when loaded, and an expanded (stride 0) tensor stays a
# view, however large it says it is. A view must fit in its storage, which must be exactly
# as large as its record; both are checked before anything is allocated.


@dataclass(frozen=True, repr=False)
class _Allowed:
    """A name a checkpoint may use, standing for what torch's means (never torch's object)."""

    name: str

    def __repr__(self) -> str:
        return self.name


@dataclass(frozen=True, repr=False)
class _StorageType(_Allowed):
    """What `torch.FloatStorage` & co. stand for: the dtype of a persistent id's bytes."""

    dtype: dtypes.dtype


@dataclass(frozen=True, repr=False)
class _TensorType(_Allowed):
    """What `torch.Tensor` and `torch.nn.Parameter` stand for inside a checkpoint."""

    parameter: bool


@dataclass(frozen=True, repr=False)
class _Callable(_Allowed):
    """An allowed function or class, called only through `_TorchUnpickler.call`."""


class _Storage:
    """One storage of this load: its array, already where `map_location` puts it."""

    def __init__(self, array, dtype: dtypes.dtype, numel: int) -> None:
        self.array, self.dtype, self.numel = array, dtype, numel


class _PendingNumpyDtype:
    """`numpy.dtype(...)` before its BUILD gives the byte order (NumPy's are shared objects)."""

    def __init__(self, np_dtype: np.dtype) -> None:
        self.np_dtype = np_dtype


def _storage_types() -> dict:
    legacy = {d._legacy: d for d in dtypes.DTYPES}  # "Float" -> float32, ...
    names = [f"torch.{name}Storage" for name in legacy] + ["torch.UntypedStorage"]
    kinds = [*legacy.values(), dtypes.uint8]
    return {name: _StorageType(name, d) for name, d in zip(names, kinds)}


_VALUES = {
    **_storage_types(),
    **{f"torch.{name}": d for name, d in {**dtypes._BY_NAME, "bool": dtypes.bool_}.items()},
    "torch.Tensor": _TensorType("torch.Tensor", False),
    "torch._tensor.Tensor": _TensorType("torch.Tensor", False),
    "torch.nn.parameter.Parameter": _TensorType("torch.nn.parameter.Parameter", True),
}
_TENSOR_FUNCTIONS = {  # what `_rebuild_from_type_v2` may call (not itself: no recursion)
    "torch._utils._rebuild_tensor_v2": "rebuild_tensor",
    "torch._utils._rebuild_tensor": "rebuild_tensor",
    "torch._utils._rebuild_parameter": "rebuild_parameter",
    "torch._utils._rebuild_parameter_with_state": "rebuild_parameter",
}
_TENSOR_REBUILDERS = _TENSOR_FUNCTIONS | {
    "torch._tensor._rebuild_from_type_v2": "rebuild_from_type"
}
_RENAMED_MODULES = {"__builtin__": "builtins", "numpy.core.multiarray": "numpy._core.multiarray"}


# ---- the allowed callables, each checking what it is given -------------------------------


def _mapping(kind):
    def make(items=()):
        if not isinstance(items, (list, tuple, dict)):
            raise TypeError(f"{kind.__name__}() of a {type(items).__name__}")
        return kind(items)

    return make


def _collection(kind):
    def make(items=()):
        if not isinstance(items, (list, tuple, set, frozenset)):
            raise TypeError(f"{kind.__name__}() of a {type(items).__name__}")
        return kind(items)

    return make


def _number(x) -> bool:
    return type(x) in (int, float)


def _complex(real=0.0, imag=0.0):
    if not (_number(real) and _number(imag)):
        raise TypeError("complex() of something that is not a number")
    return complex(real, imag)


def _latin1(text, encoding="latin1"):  # how protocol 2 spells bytes: encode(str, 'latin1')
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise TypeError("_codecs.encode is allowed only for a str and 'latin1'")
    return text.encode("latin1")


def _bytearray(data=b"", encoding=None):
    if encoding is not None:
        data = _latin1(data, encoding)
    if type(data) not in (bytes, bytearray):
        raise TypeError(f"bytearray() of a {type(data).__name__}")  # bytearray(10**12) allocates
    return bytearray(data)


def _slice(*args):
    if len(args) > 3 or not all(a is None or type(a) is int for a in args):
        raise TypeError("slice() of something other than ints and None")
    return slice(*args)


def _size(dims=()):
    if not isinstance(dims, (list, tuple)) or not all(type(d) is int for d in dims):
        raise TypeError("torch.Size() of something other than ints")
    return Size(dims)


def _device(kind, index=None):
    if type(kind) is not str or not (index is None or type(index) is int):
        raise TypeError("torch.device() of something other than a str and an int")
    try:
        return Device(kind, index)
    except RuntimeError as exc:
        raise ValueError(str(exc)) from None


def _numpy_dtype(spec, align=False, copy=True):
    if type(spec) is not str or np.dtype(spec).kind not in "biufc":
        what = repr(spec) if type(spec) is str else f"a {type(spec).__name__}"
        raise TypeError(f"numpy.dtype({what}) is not a number type")
    return _PendingNumpyDtype(np.dtype(spec))


def _numpy_scalar(dtype, data):
    if isinstance(dtype, _PendingNumpyDtype):
        dtype = dtype.np_dtype
    if not isinstance(dtype, np.dtype) or type(data) is not bytes or len(data) != dtype.itemsize:
        raise TypeError("a NumPy scalar that is not a number's bytes")
    return np.frombuffer(data, dtype=dtype)[0]


_PLAIN_CALLABLES = {
    "collections.OrderedDict": _mapping(OrderedDict),
    "collections.Counter": _mapping(Counter),
    "builtins.set": _collection(set),
    "builtins.frozenset": _collection(frozenset),
    "builtins.complex": _complex,
    "builtins.bytearray": _bytearray,
    "builtins.slice": _slice,
    "_codecs.encode": _latin1,
    "torch.Size": _size,
    "torch.device": _device,
    "numpy.dtype": _numpy_dtype,
    "numpy._core.multiarray.scalar": _numpy_scalar,
}


# ---- the unpickler -------------------------------------------------------------------------


class _TorchUnpickler(RestrictedUnpickler):
    def __init__(self, data: bytes, archive: zipfile.ZipFile, prefix: str, name: str, **how):
        super().__init__(data, name)
        self.archive, self.prefix = archive, prefix
        self.map_location, self.byteorder = how["map_location"], how["byteorder"]
        self.storages: dict[str, _Storage] = {}

    def find_class(self, module: str, name: str):
        key = f"{_RENAMED_MODULES.get(module, module)}.{name}"
        if key in _VALUES:
            return _VALUES[key]
        if key in _PLAIN_CALLABLES or key in _TENSOR_REBUILDERS:
            return _Callable(key)
        raise self.refused(
            f"refers to `{module}.{name}`, which dyngrad does not load: from PyTorch "
            "checkpoints dyngrad rebuilds tensors, parameters and plain containers only, and "
            "never runs code stored in a file (whatever `weights_only` says). Save a "
            "state_dict (`model.state_dict()`) instead of objects of your own classes."
        )

    def call(self, func, args: tuple):
        if not isinstance(func, _Callable):
            return super().call(func, args)
        if func.name in _PLAIN_CALLABLES:
            return _PLAIN_CALLABLES[func.name](*args)
        return getattr(self, _TENSOR_REBUILDERS[func.name])(*args)

    def describe(self, obj) -> str:
        return repr(obj) if isinstance(obj, (_Allowed, dtypes.dtype)) else super().describe(obj)

    def new_object(self, cls, args: tuple):
        if not (isinstance(cls, _TensorType) and cls.parameter):
            return super().new_object(cls, args)
        return self.rebuild_parameter(*args[:2])

    def build(self, obj, state):
        if isinstance(obj, _PendingNumpyDtype):  # state: (version, byte order, ...)
            if type(state) is not tuple or len(state) < 2 or state[1] not in ("<", ">", "|", "="):
                raise self.corrupt("a numpy.dtype's state has no byte order")
            return obj.np_dtype.newbyteorder(state[1]) if state[1] in "<>" else obj.np_dtype
        if type(obj) is OrderedDict and type(state) is dict:  # a state_dict's `_metadata`
            if not all(type(k) is str and not k.startswith("__") for k in state):
                raise self.refused("an OrderedDict's state may set only plain attribute names")
            obj.__dict__.update(state)
            return obj
        return super().build(obj, state)

    def persistent_load(self, pid):
        if type(pid) is not tuple or len(pid) != 5 or pid[0] != "storage":
            what = self.describe(pid[0] if type(pid) is tuple and pid else pid)
            raise self.refused(f"Only persistent_load of storage is allowed, but got {what}")
        _, storage_type, key, location, numel = pid
        if not isinstance(storage_type, _StorageType):
            raise self.refused(f"unknown storage type {self.describe(storage_type)}")
        if type(key) is not str or type(location) is not str or type(numel) is not int:
            fields = ", ".join(self.describe(field) for field in pid)
            raise self.corrupt(f"a storage's persistent id holds ({fields})")
        try:
            Device(location)
        except (RuntimeError, ValueError):
            raise self.corrupt(f"storage {key} was saved on {location!r}, not a device") from None
        storage = self.storages.get(key)
        if storage is None:
            storage = self.storages[key] = self.read_storage(
                storage_type.dtype, key, location, numel
            )
        elif (storage.dtype, storage.numel) != (storage_type.dtype, numel):
            raise self.corrupt(f"storage {key} is used with two different types or sizes")
        return storage

    def read_storage(self, dtype: dtypes.dtype, key: str, location: str, numel: int) -> _Storage:
        record = f"{self.prefix}data/{key}"
        try:
            size = self.archive.getinfo(record).file_size
        except KeyError:
            raise RuntimeError(
                f"PytorchStreamReader failed locating file data/{key}: file not found "
                f"({self.name} is corrupt)"
            ) from None
        if numel < 0 or size != numel * dtype.itemsize:  # checked before reading a byte
            raise RuntimeError(
                f"record size ({size} bytes) does not match expected size "
                f"({numel * dtype.itemsize} bytes = {numel} elements * {dtype.itemsize} "
                f"bytes/element) for dtype {dtype._legacy} ({self.name} is corrupt: data/{key})"
            )
        array = from_bytes(self.archive.read(record), dtype.np, self.byteorder)
        return _Storage(place_storage(array, location, self.map_location), dtype, numel)

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
            raise self.corrupt(f"a tensor's storage is a {type(storage).__name__}")
        view = strided_view(storage.array, storage_offset, size, stride, self.name)
        return as_leaf(Tensor._wrap(view), requires_grad is True, False)

    def rebuild_parameter(self, data, requires_grad=True, backward_hooks=None, state=None):
        if not isinstance(data, Tensor) or not self.owns(data):
            raise self.corrupt(f"a Parameter's data is a {type(data).__name__}")
        return as_leaf(data, requires_grad is True, True)

    def rebuild_from_type(self, func, new_type, args, state):
        # `state` holds Python attributes set on the saved tensor; dyngrad does not restore them
        if not isinstance(func, _Callable) or func.name not in _TENSOR_FUNCTIONS:
            what = self.describe(func)
            raise self.refused(f"_rebuild_from_type_v2 of {what}, which does not make a tensor")
        if not isinstance(new_type, _TensorType) or type(args) is not tuple:
            raise self.corrupt("_rebuild_from_type_v2 of something that is not a tensor type")
        tensor = self.made_here(self.call(func, args))
        return (
            self.rebuild_parameter(tensor, tensor.requires_grad) if new_type.parameter else tensor
        )


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
        byteorder = archive.read(prefix + "byteorder").decode("ascii", "replace")
        if byteorder not in ("little", "big"):
            raise RuntimeError(
                f"Unknown endianness type: {byteorder[:20]!r}. {name} is corrupt: its "
                "byteorder record must say little or big."
            )
    data = archive.read(pickles[0])
    how = {"map_location": map_location, "byteorder": byteorder}
    return _TorchUnpickler(data, archive, prefix, name, **how).load()
