"""dyngrad's earlier checkpoint format, written as dyngrad 0.1's `save` wrote it.

`dyngrad.save` now writes PyTorch's format; `dyngrad.load` still reads this one. These tests
make files of it here (damaged on purpose, too), and data/dyngrad-0.1.pt is one written by
dyngrad 0.1 itself.
"""

from __future__ import annotations

import base64
import io
import json
import zipfile
from collections import OrderedDict

import numpy as np

import dyngrad
from dyngrad.runtime import dtypes

MANIFEST = "dyngrad/manifest.json"
ROOT = "dyngrad/"
_FORMAT_VERSION = 1
_MAX_DEPTH = 100
_NUMPY = {d.name for d in dtypes.DTYPES} | {"uint16", "uint32", "uint64"}
_SEQUENCES = {"$list": list, "$tuple": tuple, "$frozenset": frozenset, "$set": set}
_UNSUPPORTED = "dyngrad 0.1's save cannot save an object of type {}"


def save_legacy(obj, f) -> None:
    """Writes `obj` to the path or binary file `f` in dyngrad 0.1's format."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        write_manifest(obj, archive)
    if isinstance(f, (str, bytes)) or hasattr(f, "__fspath__"):
        with open(f, "wb") as out:
            out.write(buffer.getvalue())
    else:
        f.write(buffer.getvalue())


def little_endian(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    return array


def host_array(t) -> np.ndarray:
    return t._data


def write_manifest(obj, archive: zipfile.ZipFile) -> None:
    """Writes `obj` into `archive` as a manifest and one record per tensor."""
    blobs: list = []
    manifest = {
        "format": "dyngrad",
        "version": _FORMAT_VERSION,
        "object": _Encoder(blobs).encode(obj, 0),
        "tensors": [meta for meta, _ in blobs],
    }
    archive.writestr(MANIFEST, json.dumps(manifest, allow_nan=True))
    for key, (_, array) in enumerate(blobs):
        archive.writestr(f"{ROOT}data/{key}", little_endian(array).tobytes())


class _Encoder:
    """The object as JSON-ready data; tensors go to `blobs` as (metadata, array)."""

    def __init__(self, blobs: list) -> None:
        self.blobs = blobs
        self.seen: dict[int, int] = {}

    def encode(self, obj, depth: int):
        if isinstance(obj, (np.ndarray, np.generic)):  # before float: np.float64 is a float
            return self._encode_numpy(obj, depth)
        if obj is None or isinstance(obj, (bool, int, float, str)):
            return obj
        if isinstance(obj, dyngrad.Tensor):
            return {"$tensor": self._blob(obj, _tensor_meta(obj), host_array(obj))}
        if depth > _MAX_DEPTH:
            raise ValueError(
                f"dyngrad.save cannot save containers nested more than {_MAX_DEPTH} deep "
                "(or a container that holds itself)"
            )
        return self._encode_other(obj, depth)

    def _encode_numpy(self, obj, depth: int):
        if isinstance(obj, np.generic) and obj.dtype.kind in "US":
            return self.encode(obj.item(), depth)
        if obj.dtype.name not in _NUMPY:
            raise TypeError(_UNSUPPORTED.format(f"numpy array of {obj.dtype}"))
        meta = {"kind": "numpy", "scalar": isinstance(obj, np.generic)}
        return {"$tensor": self._blob(obj, meta, np.asarray(obj))}

    def _encode_other(self, obj, depth: int):
        def each(values):
            return [self.encode(v, depth + 1) for v in values]

        if isinstance(obj, dict):
            items = [each(item) for item in obj.items()]
            if isinstance(obj, OrderedDict):
                metadata = self.encode(getattr(obj, "_metadata", None), depth + 1)
                return {"$odict": items, "metadata": metadata}
            return {"$dict": items}
        if isinstance(obj, dyngrad.Size):
            return {"$size": list(obj)}
        for tag, kind in _SEQUENCES.items():
            if isinstance(obj, kind):
                return {tag: each(obj)}
        if isinstance(obj, complex):
            return {"$complex": [obj.real, obj.imag]}
        if isinstance(obj, (bytes, bytearray)):
            return {"$bytes": base64.b64encode(bytes(obj)).decode("ascii")}
        if isinstance(obj, dtypes.dtype):
            return {"$dtype": obj.name}
        if isinstance(obj, dyngrad.device):
            return {"$device": str(obj)}
        raise TypeError(_UNSUPPORTED.format(f"{type(obj).__module__}.{type(obj).__qualname__}"))

    def _blob(self, obj, meta: dict, array: np.ndarray) -> int:
        key = self.seen.get(id(obj))
        if key is None:  # the same tensor saved twice loads as one tensor
            meta.update(dtype=array.dtype.name, shape=list(array.shape))  # name: no byte order
            key = self.seen[id(obj)] = len(self.blobs)
            self.blobs.append((meta, array))
        return key


def _tensor_meta(t) -> dict:
    return {
        "kind": "tensor",
        "requires_grad": t.requires_grad,
        "parameter": type(t).__name__ == "Parameter",
        "device": str(t.device),
    }
