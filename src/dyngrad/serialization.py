"""`save` / `load`: checkpoints that never run code on load, PyTorch's .pt and .safetensors in."""

from __future__ import annotations

import base64
import io
import json
import os
import tempfile
import zipfile
from collections import OrderedDict

import numpy as np

from ._checkpoint_tensors import from_little_endian, host_array, little_endian, restore_tensor
from ._tensor import Tensor
from .backend import dtypes
from .backend.device import device as Device
from .size import Size

__all__ = ["save", "load"]

# Note [Checkpoint format]
# A dyngrad checkpoint is a zip archive: `dyngrad/manifest.json` describes the saved object
# as JSON (containers spelled out as {"$list": [...]}, {"$dict": [[key, value], ...]}, ...,
# tensors as {"$tensor": n}), and `dyngrad/data/<n>` holds tensor n's raw little-endian bytes
# (C order). Loading parses JSON and copies bytes into arrays: no pickle, so a checkpoint from
# anyone can be loaded without running anyone's code. The zip's CRCs catch corruption; a save
# goes to a temporary file that replaces the target only once complete and flushed to disk.

_ROOT = "dyngrad/"
_MANIFEST = _ROOT + "manifest.json"
_FORMAT_VERSION = 1

_UNSUPPORTED = (
    "dyngrad.save cannot save an object of type {}: checkpoints hold tensors, NumPy arrays, "
    "numbers, strings, bytes, None, dtypes, devices and lists/tuples/dicts/sets of them, "
    "never pickled objects (so that loading one runs no code). Save `model.state_dict()` "
    "rather than the model, and rebuild the model from its class when loading."
)


def save(
    obj,
    f,
    pickle_module=None,
    pickle_protocol: int = 2,
    _use_new_zipfile_serialization: bool = True,
) -> None:
    """Matches `torch.save` for tensors, state_dicts and containers; the format is dyngrad's.

    `f` is a path or a writable binary file. A path ending in `.safetensors` writes that
    format (a flat dict of tensors; needs the `safetensors` package). Writes to a path are
    atomic: a crash leaves the old file or the new one, never half of one.

    >>> dyngrad.save(model.state_dict(), "model.pt")
    """
    if _is_path(f) and os.fspath(f).endswith(".safetensors"):
        from ._safetensors import safetensors_bytes

        _write_atomic(f, safetensors_bytes(obj))
        return
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        blobs: list = []
        encoded = _Encoder(blobs).encode(obj)
        manifest = {
            "format": "dyngrad",
            "version": _FORMAT_VERSION,
            "object": encoded,
            "tensors": [meta for meta, _ in blobs],
        }
        archive.writestr(_MANIFEST, json.dumps(manifest, allow_nan=True))
        for key, (_, array) in enumerate(blobs):
            archive.writestr(f"{_ROOT}data/{key}", little_endian(array).tobytes())
    if _is_path(f):
        _write_atomic(f, buffer.getvalue())
    else:
        f.write(buffer.getvalue())


def load(
    f,
    map_location=None,
    pickle_module=None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args,
):
    """Matches `torch.load` for dyngrad checkpoints, PyTorch's zip checkpoints and .safetensors.

    PyTorch checkpoints (`torch.save` since 1.6) are read without torch, through an unpickler
    that rebuilds only tensors, parameters and plain containers and refuses anything else:
    with any `weights_only` value, dyngrad never runs code from a file. Tensors saved on a
    device load there unless `map_location` says otherwise.
    """
    name = os.fspath(f) if _is_path(f) else getattr(f, "name", "<file object>")
    data = _read_all(f)
    from ._safetensors import is_safetensors, load_safetensors

    if is_safetensors(data, name):
        return load_safetensors(data, name, map_location)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise RuntimeError(_not_a_zip(name, data)) from None
    with archive:
        try:
            if _MANIFEST in archive.namelist():
                return _Decoder(archive, name, map_location).load()
            from ._torch_checkpoint import load_torch_checkpoint

            return load_torch_checkpoint(archive, name, map_location)
        except (
            zipfile.BadZipFile,
            zipfile.LargeZipFile,
            EOFError,
            json.JSONDecodeError,
            KeyError,
            ValueError,
        ) as exc:
            raise RuntimeError(f"{name} is corrupt: {exc}") from None


# ---- files ---------------------------------------------------------------------------------


def _is_path(f) -> bool:
    return isinstance(f, (str, os.PathLike))


def _write_atomic(path, payload: bytes) -> None:
    # Write beside the target, flush to disk, then rename over it: os.replace is atomic, so
    # readers (and a crash) see the whole old file or the whole new one.
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(
        dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp"
    )
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(payload)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    _fsync_directory(directory)


def _fsync_directory(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # platforms that cannot open directories
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _read_all(f) -> bytes:
    if _is_path(f):
        with open(f, "rb") as handle:
            return handle.read()
    return f.read()


def _not_a_zip(name: str, data: bytes) -> str:
    if data[:1] == b"\x80" or data[:2] == b"PK":
        problem = (
            "it was written by torch.save before PyTorch 1.6 (the legacy format, which "
            "dyngrad does not read: re-save it with a recent PyTorch)"
            if data[:1] == b"\x80"
            else "it is truncated or corrupt"
        )
    else:
        problem = (
            "it is neither a zip archive (dyngrad, PyTorch >= 1.6) nor a .safetensors "
            "file; it may be truncated or corrupt"
        )
    return (
        "PytorchStreamReader failed reading zip archive: failed finding central "
        f"directory.\n{name}: {problem}."
    )


# ---- dyngrad's format ------------------------------------------------------------------------


class _Encoder:
    """The object as JSON-ready data; tensors go to `blobs` as (metadata, array)."""

    def __init__(self, blobs: list) -> None:
        self.blobs = blobs
        self.seen: dict[int, int] = {}

    def encode(self, obj):
        if isinstance(obj, (np.ndarray, np.generic)):  # before float: np.float64 is a float
            return self._encode_numpy(obj)
        if obj is None or isinstance(obj, (bool, int, float, str)):
            return obj
        if isinstance(obj, Tensor):
            return {"$tensor": self._blob(obj, _tensor_meta(obj), host_array(obj))}
        return self._encode_other(obj)

    def _encode_numpy(self, obj):
        if isinstance(obj, np.generic) and obj.dtype.kind in "US":
            return self.encode(obj.item())
        if obj.dtype.kind in "OUSV" and obj.dtype != dtypes.bfloat16.np:
            raise TypeError(_UNSUPPORTED.format(f"numpy array of {obj.dtype}"))
        meta = {"kind": "numpy", "scalar": isinstance(obj, np.generic)}
        return {"$tensor": self._blob(obj, meta, np.asarray(obj))}

    def _encode_other(self, obj):
        if isinstance(obj, dict):
            items = [[self.encode(k), self.encode(v)] for k, v in obj.items()]
            if isinstance(obj, OrderedDict):
                metadata = getattr(obj, "_metadata", None)
                return {"$odict": items, "metadata": self.encode(metadata)}
            return {"$dict": items}
        if isinstance(obj, Size):
            return {"$size": list(obj)}
        for kind, name in (
            (list, "$list"),
            (tuple, "$tuple"),
            (frozenset, "$frozenset"),
            (set, "$set"),
        ):
            if isinstance(obj, kind):
                return {name: [self.encode(v) for v in obj]}
        if isinstance(obj, complex):
            return {"$complex": [obj.real, obj.imag]}
        if isinstance(obj, (bytes, bytearray)):
            return {"$bytes": base64.b64encode(bytes(obj)).decode("ascii")}
        if isinstance(obj, dtypes.dtype):
            return {"$dtype": obj.name}
        if isinstance(obj, Device):
            return {"$device": str(obj)}
        raise TypeError(_UNSUPPORTED.format(f"{type(obj).__module__}.{type(obj).__qualname__}"))

    def _blob(self, obj, meta: dict, array: np.ndarray) -> int:
        key = self.seen.get(id(obj))
        if key is None:  # the same tensor saved twice loads as one tensor
            meta.update(dtype=str(array.dtype), shape=list(array.shape))
            key = self.seen[id(obj)] = len(self.blobs)
            self.blobs.append((meta, array))
        return key


def _tensor_meta(t: Tensor) -> dict:
    return {
        "kind": "tensor",
        "requires_grad": t.requires_grad,
        "parameter": type(t).__name__ == "Parameter",
        "device": str(t.device),
    }


_TAGS = {"$list": list, "$tuple": tuple, "$set": set, "$frozenset": frozenset}


class _Decoder:
    def __init__(self, archive: zipfile.ZipFile, name: str, map_location) -> None:
        self.archive, self.name, self.map_location = archive, name, map_location
        self.tensors: dict[int, object] = {}

    def load(self):
        manifest = json.loads(self.archive.read(_MANIFEST))
        if manifest.get("format") != "dyngrad" or manifest.get("version", 0) > _FORMAT_VERSION:
            raise ValueError(
                f"unknown checkpoint format {manifest.get('format')!r} version "
                f"{manifest.get('version')!r}; a newer dyngrad may read it"
            )
        self.metas = manifest["tensors"]
        return self.decode(manifest["object"])

    def decode(self, node):
        if not isinstance(node, dict):
            return node
        if "$tensor" in node:
            return self._tensor(node["$tensor"])
        if "$dict" in node or "$odict" in node:
            return self._mapping(node)
        for tag, kind in _TAGS.items():
            if tag in node:
                return kind(self.decode(v) for v in node[tag])
        if "$size" in node:
            return Size(node["$size"])
        if "$complex" in node:
            return complex(*node["$complex"])
        if "$bytes" in node:
            return base64.b64decode(node["$bytes"])
        if "$dtype" in node:
            return dtypes._by_name(node["$dtype"])
        if "$device" in node:
            return Device(node["$device"])
        raise ValueError(f"unknown entry {sorted(node)} in the manifest")

    def _mapping(self, node):
        if "$dict" in node:
            return {self.decode(k): self.decode(v) for k, v in node["$dict"]}
        out = OrderedDict((self.decode(k), self.decode(v)) for k, v in node["$odict"])
        metadata = self.decode(node.get("metadata"))
        if metadata is not None:
            out._metadata = metadata
        return out

    def _tensor(self, key: int):
        if key not in self.tensors:
            meta = self.metas[key]
            array = _array_from_bytes(
                self.archive.read(f"{_ROOT}data/{key}"), meta["dtype"], meta["shape"]
            )
            if meta["kind"] == "numpy":
                self.tensors[key] = array[()] if meta["scalar"] else array
            else:
                self.tensors[key] = restore_tensor(
                    array,
                    meta["requires_grad"],
                    meta["parameter"],
                    meta["device"],
                    self.map_location,
                )
        return self.tensors[key]


def _array_from_bytes(raw: bytes, dtype: str, shape: list) -> np.ndarray:
    np_dtype = dtypes.bfloat16.np if dtype == "bfloat16" else np.dtype(dtype)
    if np_dtype.kind in "OV" and np_dtype != dtypes.bfloat16.np:
        raise ValueError(f"a tensor of dtype {dtype} cannot be read from bytes")
    expected = int(np.prod(shape, dtype=np.int64)) * np_dtype.itemsize
    if len(raw) != expected:
        raise ValueError(
            f"a tensor of shape {tuple(shape)} and dtype {dtype} needs {expected} "
            f"bytes, the file holds {len(raw)}"
        )
    return from_little_endian(raw, np_dtype).reshape(shape)
