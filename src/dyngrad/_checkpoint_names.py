"""The names a torch.save pickle may use, and the harmless stand-ins dyngrad reads them as."""

from __future__ import annotations

import sys
from collections import Counter, OrderedDict

import numpy as np

from .runtime import dtypes
from .runtime.device import device as Device
from .size import Size

__all__ = [
    "ALLOWED_VALUES",
    "PLAIN_CALLABLES",
    "TENSOR_FUNCTIONS",
    "TENSOR_REBUILDERS",
    "RENAMED_MODULES",
    "Allowed",
    "StorageType",
    "TensorType",
    "AllowedCallable",
    "PendingNumpyDtype",
    "dyngrad_object",
    "qualified_name",
]


class Allowed:
    """A name a checkpoint may use, standing for what torch's means (never torch's object)."""

    __slots__ = ("name",)

    def __init__(self, name: str, **fields) -> None:
        object.__setattr__(self, "name", name)
        for key, value in fields.items():
            object.__setattr__(self, key, value)

    def __setattr__(self, key: str, value) -> None:  # shared by every load: never changed
        raise AttributeError(f"{self.name} cannot be changed")

    def __repr__(self) -> str:
        return self.name


class StorageType(Allowed):
    """What `torch.FloatStorage` & co. stand for: the dtype of a persistent id's bytes."""

    __slots__ = ("dtype",)


class TensorType(Allowed):
    """What `torch.Tensor` and `torch.nn.Parameter` stand for inside a checkpoint."""

    __slots__ = ("parameter",)


class AllowedCallable(Allowed):
    """An allowed function or class, called only through the restricted unpickler's `call`."""

    __slots__ = ()


class PendingNumpyDtype:
    """`numpy.dtype(...)` before its BUILD gives the byte order (NumPy's are shared objects)."""

    def __init__(self, np_dtype: np.dtype) -> None:
        self.np_dtype = np_dtype


def _storage_types() -> dict:
    legacy = {d._legacy: d for d in dtypes.DTYPES}  # "Float" -> float32, ...
    names = [f"torch.{name}Storage" for name in legacy] + ["torch.UntypedStorage"]
    kinds = [*legacy.values(), dtypes.uint8]
    return {name: StorageType(name, dtype=d) for name, d in zip(names, kinds)}


ALLOWED_VALUES = {
    **_storage_types(),
    **{f"torch.{name}": d for name, d in {**dtypes._BY_NAME, "bool": dtypes.bool_}.items()},
    "torch.Tensor": TensorType("torch.Tensor", parameter=False),
    "torch._tensor.Tensor": TensorType("torch.Tensor", parameter=False),
    "torch.nn.parameter.Parameter": TensorType("torch.nn.parameter.Parameter", parameter=True),
}
TENSOR_FUNCTIONS = {  # what `_rebuild_from_type_v2` may call (not itself: no recursion)
    "torch._utils._rebuild_tensor_v2": "rebuild_tensor",
    "torch._utils._rebuild_tensor": "rebuild_tensor",
    "torch._utils._rebuild_parameter": "rebuild_parameter",
    "torch._utils._rebuild_parameter_with_state": "rebuild_parameter",
}
TENSOR_REBUILDERS = TENSOR_FUNCTIONS | {"torch._tensor._rebuild_from_type_v2": "rebuild_from_type"}
RENAMED_MODULES = {"__builtin__": "builtins", "numpy.core.multiarray": "numpy._core.multiarray"}


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
    return PendingNumpyDtype(np.dtype(spec))


def _numpy_scalar(dtype, data):
    if isinstance(dtype, PendingNumpyDtype):
        dtype = dtype.np_dtype
    if not isinstance(dtype, np.dtype) or type(data) is not bytes or len(data) != dtype.itemsize:
        raise TypeError("a NumPy scalar that is not a number's bytes")
    return np.frombuffer(data, dtype=dtype)[0]


PLAIN_CALLABLES = {
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


def qualified_name(module: str, name: str) -> str:
    """`module.name`, with the module names Python 2 pickles use read as Python 3's."""
    return f"{RENAMED_MODULES.get(module, module)}.{name}"


def dyngrad_object(module: str, name: str):
    """What dyngrad has for the torch global `module.name` (None if nothing).

    `torch.nn.modules.linear.Linear` is looked for as `dyngrad.nn.modules.linear.Linear`,
    then in the packages above it (`dyngrad.nn.modules`, `dyngrad.nn`, `dyngrad`), where
    dyngrad keeps a class in another file than torch does (torch's `batchnorm.py` classes
    are in dyngrad's `normalization.py`). Only modules already imported are searched.
    """
    if module != "torch" and not module.startswith("torch."):
        return None
    parts = ["dyngrad", *module.split(".")[1:]]
    for end in range(len(parts), 0, -1):
        found = sys.modules.get(".".join(parts[:end]))
        if found is None:
            continue
        for attribute in name.split("."):
            found = getattr(found, attribute, None)
        if found is not None:
            return found
    return None
