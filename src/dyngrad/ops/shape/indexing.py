"""Indexing: `__getitem__`/`__setitem__`, select/slice/narrow views, advanced indexing,
index_put.

Basic indexing (ints, slices, None, Ellipsis) is a chain of views, one node per step as in
PyTorch (`x[0, 1:]` is SliceBackward0 over SelectBackward0); a tensor, list or bool index is
advanced indexing, one IndexBackward0 node over a copy.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..._tensor import Tensor
from ...graph.grad_mode import state as grad_state
from ..table import record
from ..table.arguments import as_int
from ..table.array_backward import ArrayBackward
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .reshaping import ALIAS, UNSQUEEZE, wrap_dim

_FULL = slice(None)
_ROUND_MIN = 256  # elements a round must add to cost less than add.at's loop


def add_rows(xp, out, rows, g):
    """out[rows[i]] += g[i] for every i in order, as PyTorch's sequential index_add.

    `xp.add.at` is exact but slow. Instead, with the indices sorted stably, each round adds
    the first remaining occurrence of every row (one fancy-indexed add of distinct rows) and
    drops it, so each row still sums in its original order; distinct rows take one round.
    """
    if rows.size < 2:
        if rows.size:
            out[rows] += g
        return
    order = xp.argsort(rows, kind="stable")
    ranked = rows[order]
    width = g[0].size
    while True:
        first = xp.empty(ranked.size, dtype=bool)
        first[0] = True
        xp.not_equal(ranked[1:], ranked[:-1], out=first[1:])
        distinct = int(xp.count_nonzero(first))
        if distinct == ranked.size:  # the last round: every remaining row is distinct
            out[ranked] += g[order]
            return
        if distinct * width < _ROUND_MIN:  # few rows, many repeats: add.at's loop is cheaper
            xp.add.at(out, ranked, g[order])
            return
        out[ranked[first]] += g[order[first]]
        rest = ~first
        order, ranked = order[rest], ranked[rest]


def _embed_fwd(xp, grad, *, shape, key):
    out = xp.zeros(shape, dtype=grad.dtype)
    out[key] = grad
    return out


def _scatter_add_fwd(xp, grad, *, shape, key):
    out = xp.zeros(shape, dtype=grad.dtype)
    rows = key[0] if type(key) is tuple and len(key) == 1 else None
    if type(rows) is np.ndarray and rows.dtype.kind in "iu" and rows.ndim and shape:
        # rows of a table picked by one integer array (`weight[idx]`): add them by rounds
        rows = rows.reshape(-1)
        if rows.size and rows.min() < 0:
            rows = xp.where(rows < 0, rows + shape[0], rows)
        width = math.prod(shape[1:])
        add_rows(xp, out.reshape(shape[0], width), rows, grad.reshape(rows.size, width))
        return out
    xp.add.at(out, key, grad)
    return out


# The backward of a view: the view's gradient placed into zeros of the base's shape.
EMBED = defop("embed", _embed_fwd, {"grad": lambda g, key: g[key]}, node="SliceBackwardBackward0")
# The backward of advanced indexing: repeated indices add up.
INDEX_ADD_ZEROS = defop(
    "index_add_zeros",
    _scatter_add_fwd,
    {"grad": lambda g, key: apply(INDEX, (g,), {"key": key})},
    node="IndexBackwardBackward0",
)


def _dim_key(dim, item):
    # the trailing Ellipsis keeps a 0-d selection a view (NumPy returns a scalar copy without)
    return (_FULL,) * dim + (item, Ellipsis)


SELECT = defop(
    "select",
    lambda xp, x, *, dim, index: x[_dim_key(dim, index)],
    {
        "x": lambda g, x_shape, dim, index: apply(
            EMBED, (g,), {"shape": x_shape, "key": _dim_key(dim, index)}
        )
    },
    view=True,
    array_backward=ArrayBackward(
        lambda xp, needs, g, x_shape, dim, index: (
            _embed_fwd(xp, g, shape=x_shape, key=_dim_key(dim, index)),
        )
    ),
)
SLICE = defop(
    "slice",
    lambda xp, x, *, dim, item: x[_dim_key(dim, item)],
    {
        "x": lambda g, x_shape, dim, item: apply(
            EMBED, (g,), {"shape": x_shape, "key": _dim_key(dim, item)}
        )
    },
    view=True,
    array_backward=ArrayBackward(
        lambda xp, needs, g, x_shape, dim, item: (
            _embed_fwd(xp, g, shape=x_shape, key=_dim_key(dim, item)),
        )
    ),
)


def _index_fwd(xp, x, *, key):
    try:
        return x[key]
    except IndexError as exc:
        # PyTorch checks the bounds only when there is something to gather
        shape = _result_shape(x.shape, key)
        if shape is not None and 0 in shape:
            return xp.empty(shape, x.dtype)
        raise _index_bounds_error(exc, x.shape, key) from None


def _result_shape(shape: tuple, key: tuple):
    # what x[key] would give, found with every index in range on a zero-strided stand-in
    safe = tuple(
        np.zeros_like(k) if isinstance(k, np.ndarray) and k.dtype != np.bool_ else k for k in key
    )
    try:
        return np.broadcast_to(np.empty((), np.bool_), shape)[safe].shape
    except IndexError:
        return None


def _index_bounds_error(exc: IndexError, shape: tuple, key: tuple) -> IndexError:
    # PyTorch numbers an out-of-range index by its place among the index tensors (x[:, i]
    # says dimension 0), NumPy by the axis it indexes: find the first array out of range
    explicit = sum(
        k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
        for k in key
        if k is not None and k is not Ellipsis
    )
    axis = arrays = 0
    for k in key:
        if k is None:
            continue
        if k is Ellipsis:
            axis += len(shape) - explicit
            continue
        if isinstance(k, np.ndarray) and k.dtype != np.bool_:
            size = shape[axis]
            bad = k[(k < -size) | (k >= size)]
            if bad.size and size == 0:
                return IndexError("index is out of bounds for dimension with size 0")
            if bad.size:
                return IndexError(
                    f"index {int(bad.flat[0])} is out of bounds for dimension "
                    f"{arrays} with size {size}"
                )
            arrays += 1
        axis += k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
    return exc


INDEX = defop(
    "index",
    _index_fwd,
    {"x": lambda g, x_shape, key: apply(INDEX_ADD_ZEROS, (g,), {"shape": x_shape, "key": key})},
    array_backward=ArrayBackward(
        lambda xp, needs, g, x_shape, key: (_scatter_add_fwd(xp, g, shape=x_shape, key=key),)
    ),
)


# ---- __getitem__ ------------------------------------------------------------------------------


def _is_advanced(item) -> bool:
    if isinstance(item, Tensor):
        return not (item._data.ndim == 0 and item._data.dtype.kind in "iu")
    return isinstance(item, (list, tuple, range, np.ndarray, bool, np.bool_))


def _index_array(item):
    if isinstance(item, Tensor):
        a = item._data
    else:
        a = np.asarray(item)
        if a.dtype.kind == "f" and a.size == 0:
            a = a.astype(np.int64)
    if a.dtype.kind not in "iub":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if a.dtype == np.uint8:  # a byte tensor is a mask, as PyTorch still reads it
        warnings.warn(
            "indexing with dtype torch.uint8 is now deprecated, please use a dtype "
            "torch.bool instead.",
            UserWarning,
            stacklevel=4,
        )
        return a.astype(np.bool_)
    return a


def _advanced_key(key: tuple) -> tuple:
    return tuple(
        _index_array(k) if _is_advanced(k) else (int(k) if isinstance(k, Tensor) else k)
        for k in key
    )


def _expand_ellipsis(key: tuple, ndim: int) -> tuple:
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    if consumed > ndim:
        if ndim == 0:
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
            )
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    out = []
    seen = False
    for k in key:
        if k is Ellipsis:
            if not seen:  # PyTorch lets a second ellipsis stand for no dims at all
                out.extend([_FULL] * (ndim - consumed))
            seen = True
        else:
            out.append(k)
    return tuple(out)


def _check_advanced(shape: tuple, key: tuple) -> None:
    """PyTorch's messages for a mask that does not fit, or index tensors that do not broadcast
    (NumPy's own would name axes and arrays)."""
    if len(key) == 1 and type(key[0]) is np.ndarray and key[0].dtype.kind in "iu":
        return  # one integer index array (rows of a table): nothing to broadcast
    ndim = len(shape)
    consumed = sum(
        k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
        for k in key
        if k is not None and k is not Ellipsis and type(k) is not bool
    )
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    pos, shapes, seen = 0, [], False
    for k in key:
        if k is Ellipsis:
            pos += 0 if seen else ndim - consumed
            seen = True
        elif isinstance(k, np.ndarray) and k.dtype == np.bool_ and k.ndim:
            for j, size in enumerate(k.shape):
                if pos + j >= ndim or size != shape[pos + j]:
                    raise IndexError(
                        f"The shape of the mask {list(k.shape)} at index {j} does not match the "
                        f"shape of the indexed tensor {list(shape[pos:])} at index {j}"
                    )
            shapes.append((int(k.sum()),))
            pos += k.ndim
        elif isinstance(k, np.ndarray) and k.dtype != np.bool_:
            shapes.append(k.shape)
            pos += 1
        elif k is not None and type(k) is not bool:
            pos += 1
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError(
            "shape mismatch: indexing tensors could not be broadcast together "
            "with shapes " + ", ".join(str(list(s)) for s in shapes)
        ) from None


def _check_index(index: int, dim: int, size: int) -> int:
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
    return index + size if index < 0 else index


def _sequence_as_tuple(key: list) -> bool:
    # PyTorch (after NumPy) reads a short list holding a sequence, slice, tensor, None or
    # Ellipsis as a tuple of indices
    return len(key) < 32 and any(
        isinstance(k, (Tensor, list, tuple, range, str, slice)) or k is None or k is Ellipsis
        for k in key
    )


_LIST_AS_TUPLE = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error or "
    "a different result"
)


def _bool_0d(k) -> bool:
    # a 0-d bool tensor masks a 0-d tensor as a bool does (x[mask] has shape (1,) or (0,))
    return isinstance(k, Tensor) and k._data.ndim == 0 and k._data.dtype == np.bool_


def _zero_dim_key(key) -> None:
    """PyTorch's checks of a key for a 0-d tensor, which takes only None, ... and bools."""
    keys = key if isinstance(key, tuple) else (key,)
    if all(
        k is None or k is Ellipsis or isinstance(k, (bool, np.bool_)) or _bool_0d(k) for k in keys
    ):
        return
    if len(keys) == 1 and isinstance(keys[0], slice):
        _normalize_slice(keys[0])
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if len(keys) == 1 and isinstance(keys[0], (int, np.integer)):
        if keys[0] == 0:
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
            )
        raise IndexError(f"index {keys[0]} is out of bounds for dimension 0 with size 0")
    raise IndexError("too many indices for tensor of dimension 0")


def getitem(self, key):
    """Matches `torch.Tensor.__getitem__`."""
    if type(key) is list and _sequence_as_tuple(key):
        warnings.warn(_LIST_AS_TUPLE, UserWarning, stacklevel=2)
        key = tuple(key)
    if not self._data.ndim:
        _zero_dim_key(key)
    # x[:] is a slice, but x[:, :] and x[...] are aliases, as in PyTorch
    whole_slice = type(key) is slice
    if not isinstance(key, tuple):
        key = (key,)
    if len(key) > self._data.ndim or not all(type(k) is int or type(k) is slice for k in key):
        for k in key:  # not only ints and slices (x[i], x[:, j]: those need none of this)
            if isinstance(k, str):
                raise TypeError("new(): invalid data type 'str'")
        if any(_is_advanced(k) for k in key):
            key = _advanced_key(key)
            _check_advanced(self._data.shape, key)
            source, key = _slices_first(self, key)
            return apply(INDEX, (source,), {"key": key})
        key = _expand_ellipsis(key, self._data.ndim)
    out = self
    dim = 0  # the dim of `out` the next key applies to
    source_dim = 0  # how PyTorch's messages number it: every int, slice and None counts
    for k in key:
        if k is None:
            out = apply(_unsqueeze(), (out,), {"dim": dim})
            dim += 1
            source_dim += 1
        elif isinstance(k, slice):
            if k != _FULL:
                item = _normalize_slice(k)
                out = _view_step(SLICE, out, {"dim": dim, "item": item})
            dim += 1
            source_dim += 1
        else:
            index = _check_index(_integer(k), source_dim, out._data.shape[dim])
            out = _view_step(SELECT, out, {"dim": dim, "index": index})
            source_dim += 1
    if out is self:  # x[:] or x[...] is still a new view, as in PyTorch
        if whole_slice and self._data.ndim:
            return apply(SLICE, (self,), {"dim": 0, "item": _FULL})

        return apply(ALIAS, (self,))
    return out


def _slices_first(x: Tensor, key: tuple) -> tuple:
    """(x sliced, the key left): PyTorch takes a mixed index's slices first, as views
    (SliceBackward0 under IndexBackward0). Done where each key consumes one dim (slices and
    integer index arrays), so the dims do not move."""
    if not all(type(k) is slice or type(k) is np.ndarray and k.dtype.kind in "iu" for k in key):
        return x, key
    if all(type(k) is not slice or k == _FULL for k in key):
        return x, key
    for dim, k in enumerate(key):
        if type(k) is slice and k != _FULL:
            x = _view_step(SLICE, x, {"dim": dim, "item": _normalize_slice(k)})
    return x, tuple(_FULL if type(k) is slice else k for k in key)


def _view_step(op, x: Tensor, attrs: dict) -> Tensor:
    # `apply(op, (x,), attrs)` for a select/slice step, without the general bookkeeping when
    # no node is recorded and nobody observes ops (tokens[:, s] in a training loop)
    if x._requires_grad or record.observer is not None or type(x._data) is not np.ndarray:
        return apply(op, (x,), attrs)
    return record.new_view(op.fwd(np, x._data, **attrs), x, op, attrs, grad_state.enabled)


def _integer(k) -> int:
    if isinstance(k, Tensor):
        return int(k)
    if not isinstance(k, (int, np.integer)):
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
            "Variables are valid indices (got " + type(k).__name__ + ")"
        )
    return int(k)


def _normalize_slice(k: slice) -> slice:
    if k.step is not None and k.step <= 0:
        raise ValueError(
            "slice step cannot be zero" if k.step == 0 else "step must be greater than zero"
        )
    return k


def _unsqueeze():

    return UNSQUEEZE


@public
def narrow(input, dim, start, length):
    """Matches `torch.narrow`: a view of `length` elements along `dim` from `start`."""

    start, length = as_int(start), as_int(length)
    if input._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    start = start + size if start < 0 else start
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return apply(SLICE, (input,), {"dim": d, "item": slice(start, start + length)})


@public
def select(input, dim, index):
    """Matches `torch.select`: a view with `dim` removed, at `index`."""

    index = as_int(index)
    if input._data.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size "
            f"{list(input._data.shape)} at dimension {d}"
        )
    return apply(SELECT, (input,), {"dim": d, "index": index + size if index < 0 else index})


public(getitem, name="__getitem__", function=False)
