"""`scatter_reduce`: elements of `src` combined into `input` by index along a dim, with a
sum, product, mean, maximum or minimum (PyTorch's five reductions, all differentiable).

Each reduction is its own row (its formulas read only what they need); all are
ScatterReduceBackward0, as in PyTorch. Ties of amax/amin share the gradient evenly; a product
over zeros gives each zero the product of the others (PyTorch's rules).
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._tensor import Tensor
from ...graph.grad_mode import state as grad_state
from ...runtime.dtypes import from_numpy_dtype
from ...runtime.warn_always import warn_once
from ..arrays.gemm import LOW_PRECISION
from ..elementwise.compare import where
from ..table.argument_errors import method_offset, type_name
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .reshaping import wrap_dim
from .scatter import (
    GATHER,
    SCATTER_ADD,
    SCATTER_VALUE,
    _check_src_dims,
    _gather_scatter_index,
    _pad_to,
    _region,
    _same_dtype,
    _scatter_key,
)

_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
_UFUNCS = {
    "sum": np.add,
    "prod": np.multiply,
    "mean": np.add,
    "amax": np.maximum,
    "amin": np.minimum,
}


def _identity(kind: str, dtype):
    # what a position holds before the first src element lands there (include_self=False)
    if kind in ("sum", "mean"):
        return 0
    if kind == "prod":
        return 1
    if dtype.kind == "b":
        return kind == "amin"
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min if kind == "amax" else info.max
    return -np.inf if kind == "amax" else np.inf


def _reduce_fwd(kind: str):
    def fwd(xp, x, src, *, dim, index, include_self):
        shape = x.shape
        if not shape:  # a 0-d input is a 1-element one
            x, src, index = x.reshape(1), src.reshape(-1)[:1], index.reshape(1)
        low = x.dtype if x.dtype in LOW_PRECISION else None
        # float16/bfloat16 accumulate in float32, rounded once (See Note [Low-precision
        # products]); a mean divides the rounded sum
        out = x.astype(np.float32) if low else x.copy()
        key = _scatter_key(index, dim)
        if not include_self:
            out[key] = _identity(kind, x.dtype)
        part = src[_region(index)]
        _UFUNCS[kind].at(out, key, part.astype(np.float32) if low else part)
        if low:
            out = out.astype(low)
        if kind == "mean":
            out = _divided(xp, out, _counts(xp, x.shape, key, include_self))
        return out.reshape(shape)

    fwd.__name__ = f"scatter_reduce_{kind}"
    return fwd


def _counts(xp, shape, key, include_self):
    count = xp.full(shape, int(include_self), dtype=np.int64)
    xp.add.at(count, key, 1)
    count[count == 0] = 1  # a position nothing reached keeps its value
    return count


def _divided(xp, total, count):
    if total.dtype.kind in "iu":  # an integer mean rounds down, as PyTorch's
        return xp.floor_divide(total, count).astype(total.dtype)
    if total.dtype.kind == "b":
        raise NotImplementedError(
            "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'"
        )
    return (total / count).astype(total.dtype)


# ---- the formulas: PyTorch's scatter_reduce_backward, written with Tensor ops ----------------


def _gather(t, dim, index):
    return apply(GATHER, (t,), {"dim": dim, "index": index})


def _scatter_add(t, src, dim, index):
    return apply(SCATTER_ADD, (t, src), {"dim": dim, "index": index})


def _ones(like, shape):
    return like.new_ones(shape)


def _self_part(grad, dim, index, include_self):
    # positions src was scattered to do not see self when include_self=False
    if include_self:
        return grad
    return apply(SCATTER_VALUE, (grad,), {"dim": dim, "index": index, "value": 0})


def _src_part(grad, src_shape):
    return _pad_to(grad, src_shape)  # src may be larger than index: the rest gets zeros


def _mean_count(g, dim, index, include_self):
    # how many values each position averaged (1 where nothing arrived)
    start = _ones(g, g.shape) if include_self else g.new_zeros(g.shape)
    count = _scatter_add(start, _ones(g, index.shape), dim, index)
    return count.masked_fill(count == 0, 1)


def _extremum_count(x, src, out, dim, index):
    # how many of the values (self's and src's) equal each position's result: ties share
    value = _gather(out, dim, index)
    self_hits = (x == out).to(x.dtype)
    src_hits = (src[_region(index)] == value).to(x.dtype)
    return _scatter_add(self_hits, src_hits, dim, index), value


def _extremum_x(g, x, src, out, dim, index, include_self):
    count, _ = _extremum_count(x, src, out, dim, index)
    return _self_part((x == out) * (g / count), dim, index, include_self)


def _extremum_src(g, x, src, out, src_shape, dim, index):
    count, value = _extremum_count(x, src, out, dim, index)
    part = (src[_region(index)] == value) * _gather(g / count, dim, index)
    return _src_part(part, src_shape)


def _prod_x(g, x, src, dim, index, include_self):
    # d(prod)/d(self) = product of the others: recomputed with self's zeros read as ones
    ones_for_zeros = x.masked_fill(x == 0, 1)
    others = apply(SCATTER_REDUCE["prod"], (ones_for_zeros, src), _attrs(dim, index, include_self))
    return _self_part(g * others / ones_for_zeros, dim, index, include_self)


def _prod_src(g, x, src, out, src_shape, dim, index, include_self):
    part = src[_region(index)]
    zero = part == 0
    zeros_at = _gather(_scatter_add(x.new_zeros(x.shape), zero.to(x.dtype), dim, index), dim, index)
    single = zero & (zeros_at == 1)
    # a position with one zero in src: that zero's gradient is the product of the rest
    without = part.masked_fill(single, 1)
    rest = apply(SCATTER_REDUCE["prod"], (x, without), _attrs(dim, index, include_self))
    grad = where(
        single,
        _gather(g * rest, dim, index),
        _gather(g * out, dim, index) / part.masked_fill(zero, 1),
    )
    if grad_state.enabled and bool((zeros_at > 1).any()):
        grad = apply(_DOUBLE_BACKWARD_ERROR, (grad,))
    return _src_part(grad, src_shape)


def _refuse_double_backward(g):
    raise RuntimeError(
        "scatter_reduce(): Double backward is unsupported for src when >1 zeros in src are "
        "scattered to the same position in self"
    )


# PyTorch's DelayedError node: the first gradient is fine, a gradient through it is refused
_DOUBLE_BACKWARD_ERROR = defop(
    "scatter_reduce_double_backward_error",
    lambda xp, x: x,
    {"x": _refuse_double_backward},
    node="Error",
)


def _attrs(dim, index, include_self) -> dict:
    return {"dim": dim, "index": index, "include_self": include_self}


_FORMULAS = {
    "sum": {
        "x": lambda g, dim, index, include_self: _self_part(g, dim, index, include_self),
        "src": lambda g, src_shape, dim, index: _src_part(_gather(g, dim, index), src_shape),
    },
    "prod": {"x": _prod_x, "src": _prod_src},
    "mean": {
        "x": lambda g, dim, index, include_self: _self_part(
            g / _mean_count(g, dim, index, include_self), dim, index, include_self
        ),
        "src": lambda g, src_shape, dim, index, include_self: _src_part(
            _gather(g / _mean_count(g, dim, index, include_self), dim, index), src_shape
        ),
    },
    "amax": {"x": _extremum_x, "src": _extremum_src},
    "amin": {"x": _extremum_x, "src": _extremum_src},
}
SCATTER_REDUCE = {
    kind: defop(
        f"scatter_reduce_{kind}",
        _reduce_fwd(kind),
        _FORMULAS[kind],
        node="ScatterReduceBackward0",
    )
    for kind in _REDUCTIONS
}


# ---- public functions -----------------------------------------------------------------------


def _scatter_reduce_args(input, dim, index, src, reduce, include_self, name):
    if not isinstance(src, Tensor):
        raise TypeError(
            f"{name}(): argument 'src' (position {4 - method_offset()}) must be Tensor, "
            f"not {type_name(src)}"
        )
    if reduce not in _REDUCTIONS:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    index_ndim = index._data.ndim if isinstance(index, Tensor) else np.ndim(index)
    if np.size(index._data if isinstance(index, Tensor) else index):
        for other, tensor in (("self", input), ("src", src)):
            if other == "src":
                _check_src_dims(src, index)
            if index_ndim != tensor._data.ndim:
                raise RuntimeError(
                    f"Index tensor must have the same number of dimensions as {other} tensor"
                )
    d, a = _gather_scatter_index("scatter", input, dim, index, src)
    _same_dtype(input, src, "scatter")
    return SCATTER_REDUCE[reduce], (input, src), _attrs(d, a, bool(include_self))


@public
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """Matches `torch.scatter_reduce`: `src` combined into a copy of `input` at `index`."""
    op, args, attrs = _scatter_reduce_args(
        input, dim, index, src, reduce, include_self, "scatter_reduce"
    )
    return apply(op, args, attrs)


@public(function=False)
def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    """Matches `torch.Tensor.scatter_reduce_`."""
    op, args, attrs = _scatter_reduce_args(
        self, dim, index, src, reduce, include_self, "scatter_reduce_"
    )
    return apply_inplace(op, args, attrs, name="scatter_reduce_")


# ---- index_reduce: scatter_reduce along one dim with a vector of indices ---------------------
# `index_reduce(dim, index, source, reduce)` combines source's slice i into input's slice
# index[i]: a scatter_reduce whose index is `index` spread over source's shape. Its four
# reductions are scatter_reduce's rows under PyTorch's node name, IndexReduceBackward0.

_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")
INDEX_REDUCE = {
    kind: defop(
        f"index_reduce_{kind}",
        _reduce_fwd(kind),
        _FORMULAS[kind],
        node="IndexReduceBackward0",
    )
    for kind in _INDEX_REDUCTIONS
}


def _index_reduce_args(input, dim, index, source, reduce, include_self):
    if warn_once("index_reduce beta"):
        warnings.warn(
            "index_reduce() is in beta and the API may change at any time.", UserWarning, 3
        )
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(
            "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.ndim > 1:
        raise IndexError(
            f"index_reduce_(): Index is supposed to be a vector, but got dim: {idx.ndim} with "
            f"type: {from_numpy_dtype(idx.dtype)._legacy} and size: {list(idx.shape)}"
        )
    if idx.dtype not in (np.int32, np.int64):
        raise RuntimeError(
            "index_reduce_(): Expected dtype int32/int64 for index but got: "
            f"{from_numpy_dtype(idx.dtype)._legacy}"
        )
    if input.dtype is not source.dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({input.dtype._legacy}) and source "
            f"({source.dtype._legacy}) must have the same scalar type"
        )
    shape, src_shape = input._data.shape or (1,), source._data.shape or (1,)
    d = wrap_dim(dim, input._data.ndim)
    if len(shape) != len(src_shape) or any(
        a != b for i, (a, b) in enumerate(zip(shape, src_shape)) if i != d
    ):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(input._data.shape)} source.shape = "
            f"{list(source._data.shape)}"
        )
    idx = idx.reshape(-1).astype(np.int64)
    if len(idx) != src_shape[d]:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({len(idx)}) should be equal to "
            f"source.size(dim): ({src_shape[d]}), for dim: {d}"
        )
    if len(idx) and (idx.min() < 0 or idx.max() >= shape[d]):
        raise IndexError("index out of range in self")
    along = [1] * len(src_shape)
    along[d] = len(idx)
    spread = np.broadcast_to(idx.reshape(along), src_shape)
    if not input._data.shape:
        spread = spread.reshape(())
    return INDEX_REDUCE[reduce], (input, source), _attrs(d, spread, bool(include_self))


@public
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """Matches `torch.index_reduce`: source's slices combined into a copy of input's slices
    at `index` along `dim` (prod, mean, amax or amin)."""
    op, args, attrs = _index_reduce_args(input, dim, index, source, reduce, include_self)
    return apply(op, args, attrs)


@public(function=False)
def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """Matches `torch.Tensor.index_reduce_`."""
    op, args, attrs = _index_reduce_args(self, dim, index, source, reduce, include_self)
    return apply_inplace(op, args, attrs, name="index_reduce_")
