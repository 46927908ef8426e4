""".safetensors files in and out, through the `safetensors` package (an optional extra)."""

from __future__ import annotations

import numpy as np

from ._checkpoint_tensors import from_bytes, host_array, restore_tensor
from ._tensor import Tensor
from .runtime import dtypes

__all__ = ["safetensors_bytes", "is_safetensors", "load_safetensors"]


def _safetensors_numpy():
    try:
        import safetensors.numpy
    except ImportError:
        raise ImportError(
            "reading and writing .safetensors files needs the safetensors "
            "package: pip install 'dyngrad[safetensors]'"
        ) from None
    return safetensors.numpy


def safetensors_bytes(obj) -> bytes:
    if not isinstance(obj, dict) or not all(
        isinstance(k, str) and isinstance(v, Tensor) for k, v in obj.items()
    ):
        raise TypeError(
            "a .safetensors file holds a flat dict of str -> Tensor (a state_dict); "
            f"got {type(obj).__name__}"
        )
    arrays = {k: np.ascontiguousarray(host_array(v)) for k, v in obj.items()}
    return _safetensors_numpy().save(arrays)


def is_safetensors(data: bytes, name: str) -> bool:
    if name.endswith(".safetensors"):
        return True
    header = int.from_bytes(data[:8], "little") if len(data) >= 8 else 0
    return 0 < header <= len(data) - 8 and data[8:10] == b'{"'


# safetensors' dtype names; its NumPy loader lacks BF16, so the raw tensors are converted here.
_SAFETENSORS_DTYPES = {
    "F64": dtypes.float64,
    "F32": dtypes.float32,
    "F16": dtypes.float16,
    "BF16": dtypes.bfloat16,
    "I64": dtypes.int64,
    "I32": dtypes.int32,
    "I16": dtypes.int16,
    "I8": dtypes.int8,
    "U8": dtypes.uint8,
    "BOOL": dtypes.bool_,
    "C64": dtypes.complex64,
    "C128": dtypes.complex128,
}


def load_safetensors(data: bytes, name: str, map_location):
    _safetensors_numpy()  # says how to install the package when it is missing
    import safetensors

    try:
        entries = safetensors.deserialize(data)
    except Exception as exc:
        raise RuntimeError(f"{name} is not a valid .safetensors file: {exc}") from None
    out = {}
    for key, entry in entries:
        dtype = _SAFETENSORS_DTYPES.get(entry["dtype"])
        if dtype is None:
            raise TypeError(
                f"{name}: tensor {key!r} has dtype {entry['dtype']}, which dyngrad does not support"
            )
        array = from_bytes(bytes(entry["data"]), dtype.np)
        out[key] = restore_tensor(array.reshape(entry["shape"]), False, False, "cpu", map_location)
    return out
