"""Indexing: `__getitem__`/`__setitem__`, select/slice views, advanced indexing, gather.

Basic indexing (ints, slices, None, Ellipsis) is a chain of views, one node per step as in
PyTorch (`x[0, 1:]` is SliceBackward0 over SelectBackward0); a tensor, list or bool index is
advanced indexing, one IndexBackward0 node over a copy.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .registry import apply, apply_inplace, defop
from .surface import public

_FULL = slice(None)


def _embed_fwd(xp, grad, *, shape, key):
    out = xp.zeros(shape, dtype=grad.dtype)
    out[key] = grad
    return out


def _scatter_add_fwd(xp, grad, *, shape, key):
    out = xp.zeros(shape, dtype=grad.dtype)
    xp.add.at(out, key, grad)
    return out


# The backward of a view: the view's gradient placed into zeros of the base's shape.
EMBED = defop("embed", _embed_fwd, {"grad": lambda g, key: g[key]},
              node="SliceBackwardBackward0")
# The backward of advanced indexing: repeated indices add up.
INDEX_ADD_ZEROS = defop("index_add_zeros", _scatter_add_fwd,
                        {"grad": lambda g, key: apply(INDEX, (g,), {"key": key})},
                        node="IndexBackwardBackward0")


def _dim_key(dim, item):
    return (_FULL,) * dim + (item,)


SELECT = defop("select", lambda xp, x, *, dim, index: x[_dim_key(dim, index)],
               {"x": lambda g, x_shape, dim, index:
                apply(EMBED, (g,), {"shape": x_shape, "key": _dim_key(dim, index)})},
               view=True)
SLICE = defop("slice", lambda xp, x, *, dim, item: x[_dim_key(dim, item)],
              {"x": lambda g, x_shape, dim, item:
               apply(EMBED, (g,), {"shape": x_shape, "key": _dim_key(dim, item)})},
              view=True)
INDEX = defop("index", lambda xp, x, *, key: x[key],
              {"x": lambda g, x_shape, key:
               apply(INDEX_ADD_ZEROS, (g,), {"shape": x_shape, "key": key})})


def _index_put_fwd(xp, x, values, *, key, accumulate):
    out = x.copy()
    if accumulate:
        xp.add.at(out, key, values)
    else:
        out[key] = values
    return out


INDEX_PUT = defop(
    "index_put", _index_put_fwd,
    {"x": lambda g, key, accumulate:
     g if accumulate else apply(INDEX_PUT, (g, 0.0), {"key": key, "accumulate": False}),
     "values": lambda g, key: apply(INDEX, (g,), {"key": key})})


def _scatter_key(index):
    key = list(np.ix_(*[np.arange(s) for s in index.shape]))
    return key


def _scatter_zeros_fwd(xp, grad, *, shape, dim, index):
    out = xp.zeros(shape, dtype=grad.dtype)
    key = _scatter_key(index)
    key[dim] = index
    xp.add.at(out, tuple(key), grad)
    return out


GATHER = defop("gather", lambda xp, x, *, dim, index: xp.take_along_axis(x, index, axis=dim),
               {"x": lambda g, x_shape, dim, index: apply(
                   SCATTER_ZEROS, (g,), {"shape": x_shape, "dim": dim, "index": index})})
SCATTER_ZEROS = defop("scatter_zeros", _scatter_zeros_fwd,
                      {"grad": lambda g, dim, index: apply(GATHER, (g,),
                                                           {"dim": dim, "index": index})},
                      node="ScatterAddBackward0")


def scatter_into_zeros(g, x_shape, dim, indices):
    """Zeros of `x_shape` with `g` added at `indices` along `dim` (max/min/gather backward)."""
    return apply(SCATTER_ZEROS, (g,), {"shape": x_shape, "dim": dim, "index": indices._data})


@public
def gather(input, dim, index, *, sparse_grad=False):
    """Matches `torch.gather`."""
    from .shape import wrap_dim

    return apply(GATHER, (input,), {"dim": wrap_dim(dim, input._data.ndim),
                                    "index": _index_array(index)})


# ---- __getitem__ ------------------------------------------------------------------------------


def _is_advanced(item) -> bool:
    if isinstance(item, Tensor):
        return not (item._data.ndim == 0 and item._data.dtype.kind in "iu")
    return isinstance(item, (list, np.ndarray, bool, np.bool_))


def _index_array(item):
    if isinstance(item, Tensor):
        a = item._data
    else:
        a = np.asarray(item)
        if a.dtype.kind == "f" and a.size == 0:
            a = a.astype(np.int64)
    if a.dtype.kind not in "iub":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return a


def _advanced_key(key: tuple) -> tuple:
    return tuple(_index_array(k) if _is_advanced(k) else
                 (int(k) if isinstance(k, Tensor) else k) for k in key)


def _expand_ellipsis(key: tuple, ndim: int) -> tuple:
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    out = []
    seen = False
    for k in key:
        if k is Ellipsis:
            if seen:
                raise IndexError("an index can only have a single ellipsis ('...')")
            seen = True
            out.extend([_FULL] * (ndim - consumed))
        else:
            out.append(k)
    return tuple(out)


def _check_index(index: int, dim: int, size: int) -> int:
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
    return index + size if index < 0 else index


def getitem(self, key):
    """Matches `torch.Tensor.__getitem__`."""
    if not isinstance(key, tuple):
        key = (key,)
    if any(_is_advanced(k) for k in key):
        return apply(INDEX, (self,), {"key": _advanced_key(key)})
    explicit = key
    key = _expand_ellipsis(key, self._data.ndim)
    out = self
    dim = 0
    for k in key:
        if k is None:
            out = apply(_unsqueeze(), (out,), {"dim": dim})
            dim += 1
        elif isinstance(k, slice):
            if k != _FULL:
                item = _normalize_slice(k)
                out = apply(SLICE, (out,), {"dim": dim, "item": item})
            dim += 1
        else:
            if isinstance(k, Tensor):
                k = int(k)
            elif not isinstance(k, (int, np.integer)):
                raise IndexError(
                    "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                    "Variables are valid indices (got " + type(k).__name__ + ")")
            index = _check_index(int(k), dim, out._data.shape[dim])
            out = apply(SELECT, (out,), {"dim": dim, "index": index})
    if out is self:  # x[:] or x[...] is still a new view, as in PyTorch
        if any(isinstance(k, slice) for k in explicit) and self._data.ndim:
            return apply(SLICE, (self,), {"dim": 0, "item": _FULL})
        from .shape import ALIAS

        return apply(ALIAS, (self,))
    return out


def _normalize_slice(k: slice) -> slice:
    if k.step is not None and k.step <= 0:
        raise ValueError("step must be greater than zero")
    return k


def _unsqueeze():
    from .shape import UNSQUEEZE

    return UNSQUEEZE


MASKED_FILL = defop("masked_fill", lambda xp, x, mask, *, value: xp.where(mask, value, x),
                    {"x": lambda g, mask: g.masked_fill(mask, 0.0)})
MASKED_FILL_TENSOR = defop(
    "masked_fill_tensor", lambda xp, x, mask, value: xp.where(mask, value, x),
    {"x": lambda g, mask: g.masked_fill(mask, 0.0),
     "value": lambda g, mask: g.masked_fill(mask.logical_not(), 0.0).sum()},
    node="MaskedFillBackward1")


@public
def masked_fill(input, mask, value):
    """Matches `torch.masked_fill`."""
    _check_mask(mask)
    if isinstance(value, Tensor):
        return apply(MASKED_FILL_TENSOR, (input, mask, value))
    return apply(MASKED_FILL, (input, mask), {"value": value})


@public(function=False)
def masked_fill_(self, mask, value):
    """Matches `torch.Tensor.masked_fill_`."""
    _check_mask(mask)
    if isinstance(value, Tensor):
        return apply_inplace(MASKED_FILL_TENSOR, (self, mask, value), name="masked_fill_")
    return apply_inplace(MASKED_FILL, (self, mask), {"value": value}, name="masked_fill_")


def _check_mask(mask):
    if not isinstance(mask, Tensor) or mask._data.dtype != np.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype if isinstance(mask, Tensor) else type(mask).__name__}")


def setitem(self, key, value):
    """Matches `torch.Tensor.__setitem__`: basic keys write through a view (CopySlices)."""
    keys = key if isinstance(key, tuple) else (key,)
    if any(_is_advanced(k) for k in keys):
        index_put_(self, keys, value)
        return
    view = getitem(self, key)
    if isinstance(value, Tensor):
        view.copy_(value)
    else:
        view.fill_(value)


def index_put_(self, indices, values, accumulate=False):
    """Matches `torch.Tensor.index_put_`."""
    key = _advanced_key(tuple(indices))
    return apply_inplace(INDEX_PUT, (self, values), {"key": key, "accumulate": accumulate},
                         name="index_put_")


public(getitem, name="__getitem__", function=False)
public(setitem, name="__setitem__", function=False)
public(index_put_, name="index_put_", function=False)
