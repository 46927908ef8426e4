"""Writing through an index: `__setitem__`, `index_put_` and `index_put`.

A basic key (ints, slices) writes through a view, so the base's history is rewritten
(CopySlices); an advanced key is one IndexPutBackward0 node. Python numbers are checked as
PyTorch's `__setitem__` checks them (see Note [Argument checks]).
"""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...runtime import dtypes
from ..creation.conversion import FILL
from ..table.arguments import fill_value, type_name, unpack_int64
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .indexing import (
    INDEX,
    _advanced_key,
    _check_advanced,
    _is_advanced,
    _sequence_as_tuple,
    getitem,
)
from .reshaping import expand


def _index_put_fwd(xp, x, values, *, key, accumulate):
    out = x.copy()
    if accumulate:
        xp.add.at(out, key, values)
    else:
        out[key] = values
    return out


INDEX_PUT = defop(
    "index_put",
    _index_put_fwd,
    {
        "x": lambda g, key, accumulate: (
            g if accumulate else apply(INDEX_PUT, (g, 0.0), {"key": key, "accumulate": False})
        ),
        "values": lambda g, key: apply(INDEX, (g,), {"key": key}),
    },
)


def setitem(self, key, value):
    """Matches `torch.Tensor.__setitem__`: basic keys write through a view (CopySlices)."""
    if type(key) is list and _sequence_as_tuple(key):
        key = tuple(key)
    keys = key if isinstance(key, tuple) else (key,)
    if not isinstance(value, Tensor):
        value = _assigned(self, value)
    if any(_is_advanced(k) for k in keys):
        split = _basic_first(keys)
        if split is not None:  # x[0, idx] = v: a view, then index_put_ on it (CopySlices)
            view_key, keys = split
            if isinstance(value, Tensor) and value is self:
                raise RuntimeError(_OVERLAP)
            self = getitem(self, view_key)
        if not isinstance(value, Tensor):
            value = Tensor._wrap(np.asarray(value, self._data.dtype))
        elif _is_mask_fill(keys, value):  # a mask with one value is masked_fill: it casts
            value = value.to(self.dtype)
        elif any(k is self for k in keys):
            raise RuntimeError(_OVERLAP)
        index_put_(self, keys, value)
        return
    view = getitem(self, key)
    if isinstance(value, Tensor):
        if value._data.shape != view._data.shape:  # PyTorch's message for a bad shape
            expand(value.detach(), view._data.shape)
        view.copy_(value)
    else:
        apply_inplace(FILL, (view,), {"value": value}, name="fill_")


_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor "
    "refer to a single memory location. Please clone() the tensor before performing "
    "the operation."
)


def _basic_first(keys: tuple):
    """(basic key, index key) for a key that mixes index arrays with ints or partial slices,
    as PyTorch applies it: the ints and slices make a view, the arrays index into the view.
    None when there is nothing to split (masks and Ellipsis are left whole)."""
    basic = False
    for k in keys:
        if k is Ellipsis or _is_mask(k):
            return None
        if not _is_advanced(k) and not (isinstance(k, slice) and k == slice(None)):
            basic = True
    if not basic:
        return None
    view_key = tuple(slice(None) if _is_advanced(k) else k for k in keys)
    index_key = tuple(k if _is_advanced(k) else slice(None) for k in keys if not _is_integer(k))
    return view_key, index_key


def _is_mask(k) -> bool:
    if isinstance(k, (bool, np.bool_)):
        return True
    if isinstance(k, Tensor):
        return k._data.dtype in (np.bool_, np.uint8)
    if isinstance(k, np.ndarray):
        return k.dtype.kind == "b"
    if isinstance(k, (list, tuple)):
        try:
            return np.asarray(k).dtype.kind in "bO"
        except (ValueError, RuntimeError):  # ragged, or tensors that require grad
            return True  # leave it to index_put_'s own checks
    return False


def _is_integer(k) -> bool:
    if isinstance(k, Tensor):
        return k._data.ndim == 0 and k._data.dtype.kind in "iu"
    return isinstance(k, (int, np.integer)) and not isinstance(k, bool)


def _is_mask_fill(keys: tuple, value: Tensor) -> bool:
    masks = [k for k in keys if isinstance(k, Tensor) and k._data.dtype == np.bool_]
    return len(masks) == 1 and len(keys) == 1 and value._data.size == 1


def _assigned(self, value):
    """A Python number for `x[key] = value`, checked as PyTorch's `__setitem__` checks it."""
    d = self.dtype
    if isinstance(value, (bool, int)):
        unpack_int64(int(value))  # an int is read as int64 here, not int64-or-uint64
    elif not isinstance(value, (float, complex, np.number)):
        raise TypeError(f"can't assign a {type_name(value)} to a torch.{d._legacy}Tensor")
    if d is dtypes.float16 or d is dtypes.bfloat16:
        # the number goes through a float64 tensor: no overflow check against half's range
        with np.errstate(over="ignore"):
            return d.np.type(fill_value(value, dtypes.float64))
    return fill_value(value, d)


def _put_key(self, indices, values):
    key = _advanced_key(tuple(indices))
    _check_advanced(self._data.shape, key)
    if isinstance(values, Tensor) and values._data.ndim:
        # the shape x[key] would have, found on a zero-strided stand-in
        target = np.broadcast_to(np.empty((), np.bool_), self._data.shape)[key].shape
        try:
            if np.broadcast_shapes(values._data.shape, target) != target:
                raise ValueError
        except ValueError:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape "
                f"{list(values._data.shape)} cannot be broadcast to indexing "
                f"result of shape {list(target)}"
            ) from None
    if isinstance(values, Tensor) and values._data.dtype != self._data.dtype:
        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got "
            f"{self.dtype._legacy} for the destination and "
            f"{values.dtype._legacy} for the source."
        )
    return key


def index_put_(self, indices, values, accumulate=False):
    """Matches `torch.Tensor.index_put_`."""
    key = _put_key(self, indices, values)
    return apply_inplace(
        INDEX_PUT, (self, values), {"key": key, "accumulate": accumulate}, name="index_put_"
    )


@public
def index_put(input, indices, values, accumulate=False):
    """Matches `torch.index_put`: a copy of `input` with `values` written at `indices`."""
    key = _put_key(input, indices, values)
    return apply(INDEX_PUT, (input, values), {"key": key, "accumulate": accumulate})


public(setitem, name="__setitem__", function=False)
public(index_put_, name="index_put_")
