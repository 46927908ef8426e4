"""dyngrad's earlier checkpoint format (before it wrote torch's), read with every field checked."""

from __future__ import annotations

import base64
import binascii
import json
from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np

from ._checkpoint_tensors import from_bytes, restore_tensor
from .runtime import dtypes
from .runtime.device import device as Device
from .size import Size

if TYPE_CHECKING:  # zipfile (and the pathlib it loads) is imported by load and save
    import zipfile

__all__ = ["read_manifest", "MANIFEST"]

# Note [Checkpoint format]
# Until it wrote PyTorch's format (Note [Writing torch.save files]), dyngrad wrote its own,
# which `load` still reads (tests/serialization/legacy.py writes it as dyngrad 0.1 did).
# A checkpoint of that format is a zip archive: `dyngrad/manifest.json` describes the saved object
# as JSON (containers spelled out as {"$list": [...]}, {"$dict": [[key, value], ...]}, ...,
# tensors as {"$tensor": n}), and `dyngrad/data/<n>` holds tensor n's raw little-endian bytes
# (C order). Loading parses JSON and copies bytes into arrays: no pickle, so a checkpoint from
# anyone can be loaded without running anyone's code. Every field is checked before it is
# used (types, tensor indices, dtypes, shapes against the bytes the record holds), so a
# damaged manifest raises one clear error (see Note [Load errors] in serialization.py) and
# allocates nothing it cannot fill.

ROOT = "dyngrad/"
MANIFEST = ROOT + "manifest.json"
_FORMAT_VERSION = 1
_MAX_DEPTH = 100  # containers in containers (the decoder recurses; the writer stopped here too)
_MAX_DIMS = 64  # NumPy's limit

# Element types a checkpoint may hold, by NumPy name (one byte order: little-endian).
_TENSOR_DTYPES = {d.name: d for d in dtypes.DTYPES}
_NUMPY_ONLY = ("uint16", "uint32", "uint64")  # NumPy arrays could hold these, tensors not
_DTYPES = (*_TENSOR_DTYPES, *_NUMPY_ONLY)


def _np_dtype(name: str) -> np.dtype:
    return np.dtype(name) if name in _NUMPY_ONLY else _TENSOR_DTYPES[name].np


_SEQUENCES = {"$list": list, "$tuple": tuple, "$frozenset": frozenset, "$set": set}


class ManifestError(ValueError):
    """What is wrong with a manifest; `load` names the file."""


# ---- reading -------------------------------------------------------------------------------


def read_manifest(archive: zipfile.ZipFile, name: str, map_location):
    """The object a dyngrad checkpoint holds; raises ManifestError for anything malformed."""
    try:
        manifest = json.loads(archive.read(MANIFEST))
    except RecursionError:
        raise ManifestError("the manifest is nested too deeply to be read") from None
    if not isinstance(manifest, dict) or manifest.get("format") != "dyngrad":
        raise ManifestError("the manifest does not describe a dyngrad checkpoint")
    version = manifest.get("version")
    if type(version) is not int or version < 1:
        raise ManifestError(f"the manifest's version is {_describe(version)}")
    if version > _FORMAT_VERSION:
        raise ManifestError(
            f"unknown checkpoint format 'dyngrad' version {version}; a newer dyngrad may read it"
        )
    metas = _field(manifest, "tensors", list, "the manifest")
    for key, meta in enumerate(metas):
        _check_meta(key, meta, name)
    if "object" not in manifest:
        raise ManifestError("the manifest has no 'object'")
    return _Decoder(archive, metas, map_location).decode(manifest["object"], 0)


def _field(node: dict, key: str, kind, where: str):
    if not isinstance(node, dict):
        raise ManifestError(f"{where} is {_describe(node)}, not an object")
    if key not in node:
        raise ManifestError(f"{where} has no {key!r}")
    value = node[key]
    if type(value) is not kind:
        raise ManifestError(f"{where}'s {key!r} is {_describe(value)}, not a {kind.__name__}")
    return value


def _check_meta(key: int, meta, name: str) -> None:
    where = f"tensor {key}"
    kind = _field(meta, "kind", str, where)
    if kind not in ("tensor", "numpy"):
        raise ManifestError(f"{where} is of unknown kind {kind!r}")
    dtype = _field(meta, "dtype", str, where)
    if dtype not in (_DTYPES if kind == "numpy" else _TENSOR_DTYPES):
        raise RuntimeError(
            f"{name}: {where} has dtype {dtype!r}, which dyngrad does not load "
            f"(it loads {', '.join(_DTYPES)})"
        )
    shape = _field(meta, "shape", list, where)
    if len(shape) > _MAX_DIMS or not all(type(n) is int and 0 <= n < 2**63 for n in shape):
        raise ManifestError(f"{where}'s shape {_describe(shape)} is not a list of sizes")
    if kind == "numpy":
        if _field(meta, "scalar", bool, where) and shape:
            raise ManifestError(f"{where} is a NumPy scalar of shape {shape}")
        return
    _field(meta, "parameter", bool, where)
    _device(_field(meta, "device", str, where))
    element = _TENSOR_DTYPES[dtype]
    differentiable = element.is_floating_point or element.is_complex
    if _field(meta, "requires_grad", bool, where) and not differentiable:
        raise ManifestError(f"{where} of dtype {dtype} cannot require grad")


def _device(text: str) -> Device:
    try:
        return Device(text)
    except (RuntimeError, ValueError):
        raise ManifestError(f"{text!r} is not a device") from None


def _hashable(value, where: str):
    try:
        hash(value)
    except TypeError:
        raise ManifestError(f"{where} holds an unhashable {type(value).__name__}") from None
    return value


_TAGS = {
    *_SEQUENCES,
    "$dict",
    "$odict",
    "$tensor",
    "$size",
    "$complex",
    "$bytes",
    "$dtype",
    "$device",
}


class _Decoder:
    def __init__(self, archive: zipfile.ZipFile, metas: list, map_location) -> None:
        self.archive, self.metas, self.map_location = archive, metas, map_location
        self.tensors: dict[int, object] = {}

    def decode(self, node, depth: int):
        if node is None or type(node) in (bool, int, float, str):
            return node
        if depth > _MAX_DEPTH:
            raise ManifestError(f"the manifest nests containers more than {_MAX_DEPTH} deep")
        tags = [k for k in node if k in _TAGS] if isinstance(node, dict) else []
        if len(tags) != 1 or len(node) > 1 + (tags[0] == "$odict" and "metadata" in node):
            raise ManifestError(f"unknown entry {_describe(node)} in the manifest")
        tag, value = tags[0], node[tags[0]]
        if tag in _SEQUENCES:
            items = [self.decode(v, depth + 1) for v in _list(value, tag)]
            if tag in ("$set", "$frozenset"):
                items = [_hashable(v, tag) for v in items]
            return _SEQUENCES[tag](items)
        if tag in ("$dict", "$odict"):
            return self._mapping(node, tag, depth)
        if tag == "$tensor":
            return self._tensor(value)
        return _decode_value(tag, value)

    def _mapping(self, node: dict, tag: str, depth: int):
        pairs = []
        for pair in _list(node[tag], tag):
            if type(pair) is not list or len(pair) != 2:
                raise ManifestError(f"{tag} holds {_describe(pair)}, not a [key, value] pair")
            key = _hashable(self.decode(pair[0], depth + 1), f"{tag} key")
            pairs.append((key, self.decode(pair[1], depth + 1)))
        if tag == "$dict":
            return dict(pairs)
        out = OrderedDict(pairs)
        metadata = self.decode(node.get("metadata"), depth + 1)
        if metadata is not None:
            out._metadata = metadata
        return out

    def _tensor(self, key):
        if type(key) is not int or not 0 <= key < len(self.metas):
            raise ManifestError(f"$tensor {key!r} is not one of the {len(self.metas)} tensors")
        if key not in self.tensors:
            meta = self.metas[key]
            array = _read_array(self.archive, key, meta["dtype"], meta["shape"])
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


def _list(value, tag: str) -> list:
    if type(value) is not list:
        raise ManifestError(f"{tag} holds {_describe(value)}, not a list")
    return value


def _describe(value) -> str:
    try:
        text = repr(sorted(value) if isinstance(value, dict) else value)
    except RecursionError:
        text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def _decode_value(tag: str, value):
    if tag == "$size" and type(value) is list and all(type(n) is int for n in value):
        return Size(value)
    if tag == "$complex" and type(value) is list and len(value) == 2:
        if all(type(x) is float or (type(x) is int and abs(x) <= 2**1023) for x in value):
            return complex(*value)
    if tag == "$bytes" and type(value) is str:
        try:
            return base64.b64decode(value, validate=True)
        except binascii.Error:
            pass
    if tag == "$dtype" and type(value) is str and value in dtypes._BY_NAME:
        return dtypes._by_name(value)
    if tag == "$device" and type(value) is str:
        return _device(value)
    raise ManifestError(f"{tag} holds {_describe(value)}")


def _read_array(archive: zipfile.ZipFile, key: int, dtype: str, shape: list) -> np.ndarray:
    record = f"{ROOT}data/{key}"
    np_dtype = _np_dtype(dtype)
    expected = int(np.prod(shape, dtype=object)) * np_dtype.itemsize  # Python ints: no overflow
    try:
        size = archive.getinfo(record).file_size
    except KeyError:
        raise ManifestError(f"the archive has no {record} for tensor {key}") from None
    if size != expected:  # checked before reading (or allocating) anything
        raise ManifestError(
            f"a tensor of shape {tuple(shape)} and dtype {dtype} needs {expected} "
            f"bytes, the file holds {size}"
        )
    return from_bytes(archive.read(record), np_dtype).reshape(shape)
