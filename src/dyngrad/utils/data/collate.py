"""`default_collate` and `default_convert`: samples into batches of tensors."""

from __future__ import annotations

import collections.abc
import copy
import functools
import re

import numpy as np

from ..._tensor import Tensor
from ...graph.grad_mode import state as grad_state
from ...ops.creation.factories import as_tensor, tensor
from ...ops.shape.joining import stack
from ...runtime.dtypes import from_numpy_dtype, promote_types

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map"]

_STRING_ARRAY = re.compile(r"[SaUO]")  # numpy dtypes of strings and objects: not collated

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def default_convert(data):
    """Matches `torch.utils.data.default_convert`: NumPy arrays (nested) become tensors."""
    kind = type(data)
    if isinstance(data, Tensor):
        return data
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_"):
        if isinstance(data, np.ndarray) and _STRING_ARRAY.search(data.dtype.str):
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return kind(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def collate(batch, *, collate_fn_map: dict | None = None):
    """Matches `torch.utils.data._utils.collate.collate`: collate by the first element's type.

    `collate_fn_map` maps a type (or tuple of types) to `fn(batch, *, collate_fn_map)`.
    """
    elem = batch[0]
    kind = type(elem)
    if collate_fn_map is not None:
        if kind in collate_fn_map:
            return collate_fn_map[kind](batch, collate_fn_map=collate_fn_map)
        for types, fn in collate_fn_map.items():
            if isinstance(elem, types):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(
            elem,
            {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem},
        )
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return kind(*(collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)]
        # A tuple of fields collates to a list, as in PyTorch (backwards compatibility).
        return columns if isinstance(elem, tuple) else _rebuild_sequence(elem, columns)
    raise TypeError(default_collate_err_msg_format.format(kind))


def _rebuild_mapping(like, values: dict):
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)
            clone.update(values)
            return clone
        return type(like)(values)
    except TypeError:  # a mapping type that cannot be rebuilt from a dict
        return values


def _rebuild_sequence(like, values: list):
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, v in enumerate(values):
                clone[i] = v
            return clone
        return type(like)(values)
    except TypeError:
        return values


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Stack tensors along a new first dim (through the graph when one requires grad)."""
    shape = batch[0]._data.shape
    for i, t in enumerate(batch):
        if t._data.shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry "
                f"0 and {list(t._data.shape)} at entry {i}"
            )
    if grad_state.enabled and any(t._requires_grad for t in batch):
        return stack(batch, 0)
    dtype = functools.reduce(promote_types, (from_numpy_dtype(t._data.dtype) for t in batch))
    return Tensor._wrap(np.stack([t._data for t in batch]).astype(dtype.np, copy=False))


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    if _STRING_ARRAY.search(batch[0].dtype.str):
        raise TypeError(default_collate_err_msg_format.format(batch[0].dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return as_tensor(np.array(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    # Python floats are doubles: straight to float64 (no detour through the default dtype).
    return Tensor._wrap(np.array(batch, dtype=np.float64))


def collate_int_fn(batch, *, collate_fn_map=None):
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map: dict = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Matches `torch.utils.data.default_collate`.

    Tensors, NumPy arrays and numbers are stacked into one tensor with a new first dim;
    dicts, lists, tuples and namedtuples are collated field by field; strings stay a list.

    >>> default_collate([(0, 1.5), (1, 2.5)])
    [tensor([0, 1]), tensor([1.5000, 2.5000], dtype=torch.float64)]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
