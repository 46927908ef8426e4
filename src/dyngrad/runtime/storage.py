"""Storages: `torch.UntypedStorage` (a tensor's memory as bytes) and `torch.TypedStorage`
(the same memory as elements of a dtype), with the legacy `torch.FloatStorage` family.

# Note [Storage objects]
# A tensor's storage is its base's array (Note [Storage]). `UntypedStorage` holds that array's
# memory as a 1-D uint8 NumPy array that shares it, so bytes written through the storage show
# up in every tensor over it, and `set_` can put a tensor onto it. A `TypedStorage` is an
# `UntypedStorage` read as elements of its dtype. NumPy can't grow memory that arrays share,
# so `resize_` refuses a tensor's storage as PyTorch refuses a non-resizable one; a storage
# made by its constructor or `clone()` owns its bytes and may change size (a tensor `set_` on
# it before keeps the old bytes).
"""

from __future__ import annotations

import warnings

import numpy as np

from . import dtypes
from .device import device as _device

__all__ = ["UntypedStorage", "TypedStorage", "LEGACY", "bytes_of", "warn_typed_storage_removal"]


class _Memory:
    """Memory NumPy reads through `__array_interface__`; keeps the owner alive as the base."""

    __slots__ = ("__array_interface__", "owner")


def bytes_of(array: np.ndarray) -> np.ndarray:
    """`array`'s memory as a 1-D uint8 array sharing it (its first to its last byte)."""
    if array.flags.c_contiguous:
        return array.reshape(-1).view(np.uint8)
    start = array.__array_interface__["data"][0]
    lo = start + sum(min(0, (n - 1) * s) for n, s in zip(array.shape, array.strides))
    hi = start + sum(max(0, (n - 1) * s) for n, s in zip(array.shape, array.strides))
    memory = _Memory()
    memory.owner = array
    memory.__array_interface__ = {
        "shape": (hi - lo + array.itemsize if array.size else 0,),
        "typestr": "|u1",
        "data": (lo, not array.flags.writeable),
        "version": 3,
    }
    return np.asarray(memory)


def _index(i, n: int) -> int:
    if not -n <= i < n:
        raise IndexError(f"index {i} out of range for storage of size {n}")
    return i % n


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _data_str(values: list, info: str) -> str:
    return " " + "\n ".join(str(v) for v in values) + "\n" + info


class UntypedStorage:
    """Matches `torch.UntypedStorage`: bytes, shared with the tensors over them."""

    is_sparse = False
    is_cuda = False

    def __init__(self, *args, device=None):
        if device is not None and _device(device).type != "cpu":
            raise RuntimeError(f"dyngrad keeps storages on the CPU only, not on {device}")
        if not args:
            args = (0,)
        (source,) = args
        if _is_int(source):
            self._array = np.zeros(int(source), np.uint8)  # PyTorch leaves it uninitialised
        else:
            items = list(source)
            for item in items:
                if not _is_int(item):
                    raise RuntimeError(
                        f"torch.UntypedStorage(): tried to construct a storage from a sequence "
                        f"({type(source).__name__}), but one of the items was of type "
                        f"{type(item).__name__} instead of int"
                    )
            self._array = np.array([v % 256 for v in items], np.uint8)
        self._resizable = True

    @classmethod
    def _wrap(cls, array: np.ndarray, resizable: bool = False) -> UntypedStorage:
        self = object.__new__(cls)
        self._array = array
        self._resizable = resizable
        return self

    @property
    def device(self):
        return _device("cpu")

    @property
    def filename(self):
        return None

    def data_ptr(self) -> int:
        return self._array.__array_interface__["data"][0]

    def nbytes(self) -> int:
        return int(self._array.size)

    def size(self) -> int:
        return int(self._array.size)

    def __len__(self) -> int:
        return int(self._array.size)

    def element_size(self) -> int:
        return 1

    def type(self, dtype=None, non_blocking=False):
        return "torch.storage.UntypedStorage" if dtype is None else self

    def is_shared(self) -> bool:
        return False

    def is_pinned(self, device="cuda") -> bool:
        return False

    def cpu(self) -> UntypedStorage:
        return self

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return UntypedStorage._wrap(self._array[idx])
        if not _is_int(idx):
            raise TypeError(f"can't index a torch.UntypedStorage with {type(idx).__name__}")
        return int(self._array[_index(int(idx), len(self))])

    def __setitem__(self, idx, value):
        if not _is_int(value):
            raise TypeError(f"can't assign a {type(value).__name__} to a torch.UntypedStorage")
        if not isinstance(idx, slice):
            if not _is_int(idx):
                raise TypeError(f"can't index a torch.UntypedStorage with {type(idx).__name__}")
            idx = _index(int(idx), len(self))
        self._array[idx] = int(value) % 256

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self) -> list:
        return self._array.tolist()

    def fill_(self, value) -> UntypedStorage:
        self._array[...] = int(value) % 256
        return self

    def copy_(self, source, non_blocking=None) -> UntypedStorage:
        src = source._untyped_storage if isinstance(source, TypedStorage) else source
        if src.nbytes() != self.nbytes():
            raise RuntimeError(
                f"size does not match, self was {self.nbytes()} bytes but src was "
                f"{src.nbytes()} bytes"
            )
        self._array[...] = src._array
        return self

    def clone(self) -> UntypedStorage:
        return UntypedStorage._wrap(self._array.copy(), resizable=True)

    def resize_(self, size) -> UntypedStorage:
        size = int(size)
        if size == len(self):
            return self
        if not self._resizable:
            raise RuntimeError(
                "Trying to resize storage that is not resizable (dyngrad: a tensor's storage "
                "is NumPy memory that can't grow in place; clone() it to get one that can)"
            )
        new = np.zeros(size, np.uint8)
        n = min(size, len(self))
        new[:n] = self._array[:n]
        self._array = new
        return self

    def untyped(self) -> UntypedStorage:
        return self

    def __repr__(self) -> str:
        info = f"[torch.storage.UntypedStorage(device=cpu) of size {len(self)}]"
        return _data_str(self.tolist(), info)

    __str__ = __repr__

    def __copy__(self) -> UntypedStorage:
        return self.clone()

    def __deepcopy__(self, memo) -> UntypedStorage:
        return memo.setdefault(id(self), self.clone())


# ---- TypedStorage ---------------------------------------------------------------------------

_WARN = {"always": False, "warned": False}
_REMOVAL = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be "
    "the only storage class. This should only matter to you if you are using storages "
    "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
    "tensor.storage()"
)


def warn_typed_storage_removal(stacklevel: int = 2) -> None:
    """PyTorch's deprecation warning, once per process (every time when set to always)."""
    if _WARN["always"] or not _WARN["warned"]:
        warnings.warn(_REMOVAL, UserWarning, stacklevel=stacklevel + 1)
        _WARN["warned"] = True


def _set_always_warn_typed_storage_removal(always_warn: bool) -> None:
    _WARN["always"] = bool(always_warn)


def _get_always_warn_typed_storage_removal() -> bool:
    return _WARN["always"]


def _python(values: np.ndarray) -> list:
    if dtypes.is_bfloat16(values.dtype):
        values = values.astype(np.float32)
    return values.tolist()


class TypedStorage:
    """Matches `torch.TypedStorage`: an `UntypedStorage` read as elements of `dtype`."""

    is_sparse = False
    is_cuda = False

    def __init__(self, *args, device=None, dtype=None, wrap_storage=None, _internal=False):
        if not _internal:
            warn_typed_storage_removal()
        legacy = LEGACY_DTYPE.get(type(self))
        dtype = legacy or dtype or dtypes.get_default_dtype()
        if wrap_storage is not None:
            if args:
                raise RuntimeError(
                    "TypedStorage.__init__ received positional arguments along with `wrap_storage`"
                )
            untyped = wrap_storage
        elif not args:
            untyped = UntypedStorage(0, device=device)
        elif len(args) == 1 and _is_int(args[0]):
            untyped = UntypedStorage(int(args[0]) * dtype.itemsize, device=device)
        elif len(args) == 1:
            values = np.array(list(args[0]), dtype=dtype.np)
            untyped = UntypedStorage._wrap(values.view(np.uint8), resizable=True)
        else:
            raise TypeError("TypedStorage.__init__ received an invalid combination of arguments")
        self._untyped_storage = untyped
        self.dtype = dtype

    @property
    def _values(self) -> np.ndarray:
        raw = self._untyped_storage._array
        item = self.dtype.itemsize
        return raw[: raw.size - raw.size % item].view(self.dtype.np)

    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def filename(self):
        return None

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def size(self) -> int:
        return self.nbytes() // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def type(self, dtype=None, non_blocking=False):
        return f"torch.{self.dtype._legacy}Storage" if dtype is None else self

    def pickle_storage_type(self) -> str:
        return f"{self.dtype._legacy}Storage"

    def is_shared(self) -> bool:
        return False

    def is_pinned(self, device="cuda") -> bool:
        return False

    def cpu(self) -> TypedStorage:
        return self

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not _is_int(idx):
            raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
        values = self._values
        i = _index(int(idx), values.size)
        return _python(values[i : i + 1])[0]

    def __setitem__(self, idx, value):
        if not isinstance(value, (int, float, complex, bool, np.generic)):
            raise TypeError(
                f"can't assign a {type(value).__name__} to a torch.{self.dtype._legacy}Tensor"
            )
        values = self._values
        if not isinstance(idx, slice):
            if not _is_int(idx):
                raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
            idx = _index(int(idx), values.size)
        values[idx] = value

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self) -> list:
        return _python(self._values)

    def fill_(self, value) -> TypedStorage:
        self._values[...] = value
        return self

    def copy_(self, source, non_blocking=None) -> TypedStorage:
        if isinstance(source, TypedStorage) and source.dtype is not self.dtype:
            self._values[...] = source._values.astype(self.dtype.np)
        else:
            self._untyped_storage.copy_(source)
        return self

    def clone(self) -> TypedStorage:
        return TypedStorage(
            wrap_storage=self._untyped_storage.clone(), dtype=self.dtype, _internal=True
        )

    def resize_(self, size) -> TypedStorage:
        self._untyped_storage.resize_(int(size) * self.dtype.itemsize)
        return self

    def _to(self, dtype: dtypes.dtype) -> TypedStorage:
        """A copy converted to `dtype`, as PyTorch's casts convert (floats to integers
        through int64, so negative values wrap into unsigned ones)."""
        values = self._values
        if values.dtype.kind == "c" and not dtype.is_complex:
            warnings.warn(
                "Casting complex values to real discards the imaginary part", stacklevel=3
            )
            values = values.real
        if values.dtype.kind in "fV" and dtype._category == 1:
            values = values.astype(np.int64)
        new = np.ascontiguousarray(values.astype(dtype.np)).reshape(-1)
        untyped = UntypedStorage._wrap(new.view(np.uint8), resizable=True)
        return TypedStorage(wrap_storage=untyped, dtype=dtype, _internal=True)

    def double(self) -> TypedStorage:
        return self._to(dtypes.float64)

    def float(self) -> TypedStorage:
        return self._to(dtypes.float32)

    def half(self) -> TypedStorage:
        return self._to(dtypes.float16)

    def bfloat16(self) -> TypedStorage:
        return self._to(dtypes.bfloat16)

    def long(self) -> TypedStorage:
        return self._to(dtypes.int64)

    def int(self) -> TypedStorage:
        return self._to(dtypes.int32)

    def short(self) -> TypedStorage:
        return self._to(dtypes.int16)

    def char(self) -> TypedStorage:
        return self._to(dtypes.int8)

    def byte(self) -> TypedStorage:
        return self._to(dtypes.uint8)

    def bool(self) -> TypedStorage:
        return self._to(dtypes.bool_)

    def complex_float(self) -> TypedStorage:
        return self._to(dtypes.complex64)

    def complex_double(self) -> TypedStorage:
        return self._to(dtypes.complex128)

    def __repr__(self) -> str:
        info = (
            f"[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size "
            f"{len(self)}]"
        )
        return _data_str(self.tolist(), info)

    __str__ = __repr__

    def __copy__(self) -> TypedStorage:
        return self.clone()

    def __deepcopy__(self, memo) -> TypedStorage:
        return memo.setdefault(id(self), self.clone())


class _LegacyStorageMeta(type):
    # `isinstance(t.storage(), torch.FloatStorage)` holds for a TypedStorage of float32
    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, TypedStorage) and instance.dtype is LEGACY_DTYPE[cls]


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    """`torch.FloatStorage(n)` and its kin: a TypedStorage of a fixed dtype."""


LEGACY: dict = {}  # "FloatStorage" -> its class
LEGACY_DTYPE: dict = {}  # its class -> its dtype
for _d in dtypes.DTYPES:
    _cls = _LegacyStorageMeta(f"{_d._legacy}Storage", (_LegacyStorage,), {})
    LEGACY[_cls.__name__] = _cls
    LEGACY_DTYPE[_cls] = _d
globals().update(LEGACY)  # importable by name, for pickle
