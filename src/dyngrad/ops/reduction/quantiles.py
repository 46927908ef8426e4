"""quantile, nanquantile and mode, as PyTorch computes them (sort, gather at the ranks, lerp_,
then squeeze_: SqueezeBackward4 is the node a quantile ends on)."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...return_types import mode as mode_result
from ...runtime import dtypes
from ..shape.reshaping import wrap_dim
from ..table.record import apply
from ..table.surface import public
from . import select_order
from .sorting import _to_positions, _values_and_indices, sort

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _check_quantile(name, input, q, interpolation):
    if input.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, Tensor):
        if q.dtype != input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        if q.dim() > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            f"{name}() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}"
        )
    qs = np.asarray(q._data if isinstance(q, Tensor) else q, dtype=input._data.dtype)
    if ((qs < 0) | (qs > 1)).any():
        if qs.ndim == 0:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    return qs


def _sorted_rows(input, dim, keepdim):
    # the values sorted along the last dim, the other dims shaped as the result's
    if dim is None:
        rows = input.reshape(-1)
        if keepdim:
            rows = rows.reshape((1,) * input.dim() + (-1,))
        return sort(rows, -1)[0]
    d = wrap_dim(dim, max(input.dim(), 1))
    if input.dim() == 0:  # a scalar keeps its shape, keepdim or not
        return sort(input.reshape(1), -1)[0]
    values = sort(input.unsqueeze(-1).transpose(d, -1), -1)[0]
    return values if keepdim else values.squeeze(d)


def _ranks(xp, rows, qs, ignore_nan: bool, interpolation: str):
    n = rows.shape[-1]
    nan = xp.isnan(rows)
    if ignore_nan:
        valid = n - nan.sum(-1, keepdims=True)
        ranks = qs * (valid - 1).astype(rows.dtype)
        ranks = xp.where(valid == 0, n - 1, ranks)
    else:
        ranks = qs * rows.dtype.type(n - 1) + xp.zeros(rows.shape[:-1] + (1,), rows.dtype)
        ranks = xp.where(nan.any(-1, keepdims=True), n - 1, ranks)
    if interpolation == "lower":
        ranks = xp.floor(ranks)
    elif interpolation == "higher":
        ranks = xp.ceil(ranks)
    elif interpolation == "nearest":
        ranks = xp.round(ranks)  # half to even, as PyTorch's round
    return ranks.astype(rows.dtype)


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    qs = _check_quantile(name, input, q, interpolation)
    rows = _sorted_rows(input, dim, keepdim)
    ranks = _ranks(np, rows._data, qs.reshape(-1), ignore_nan, interpolation)
    below_index = ranks.astype(np.int64)
    out = rows.gather(-1, Tensor._wrap(below_index))
    if interpolation in ("linear", "midpoint"):
        weights = (ranks - below_index).astype(ranks.dtype)
        if interpolation == "midpoint":
            weights = np.full_like(ranks, 0.5)
        above = rows.gather(-1, Tensor._wrap(np.ceil(ranks).astype(np.int64)))
        out.lerp_(above, Tensor._wrap(weights))
    if qs.ndim == 0:
        return out.squeeze_(-1)
    return out.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)


@public
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """Matches `torch.quantile`: q-th quantiles along `dim` (all values when None)."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, ignore_nan=False)


@public
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """Matches `torch.nanquantile`: `quantile` ignoring NaN values."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, ignore_nan=True)


# ---- mode -----------------------------------------------------------------------------------


def _mode_fwd(xp, x, *, dim, keepdim):
    # PyTorch's CPU kernel std::sorts each row's (value, index) pairs (not stably: See Note
    # [Tie order of sort and topk]) and keeps the first longest run of equal values (the
    # smallest most frequent value) and the index that ends that run
    if x.ndim == 0:
        return x.copy(), xp.zeros((), dtype=xp.int64)
    moved = xp.moveaxis(x, dim, -1)
    n = moved.shape[-1]
    rows = np.ascontiguousarray(moved).reshape(-1, n)
    key, index, first = select_order.row_keys(rows)
    select_order.sort_ranges(key, index, first, first + n)
    key, index = key.reshape(rows.shape), index.reshape(rows.shape)
    values = xp.empty(rows.shape[0], x.dtype)
    at = xp.empty(rows.shape[0], xp.int64)
    for r in range(rows.shape[0]):
        bounds = np.flatnonzero(np.r_[True, key[r, 1:] != key[r, :-1], True])
        run = int(np.argmax(np.diff(bounds)))
        at[r] = index[r, bounds[run + 1] - 1]
        values[r] = rows[r, at[r]]
    values, index = values.reshape(moved.shape[:-1]), at.reshape(moved.shape[:-1])
    if keepdim:
        values, index = xp.expand_dims(values, dim), xp.expand_dims(index, dim)
    return values, index


MODE = _values_and_indices(
    "mode",
    _mode_fwd,
    lambda g, x_shape, dim, keepdim, out: _to_positions(g, x_shape, dim, out[1], keepdim),
)


@public
def mode(input, dim=-1, keepdim=False):
    """Matches `torch.mode`: the most frequent value along `dim` (the smallest on ties) and
    the last index where it occurs."""
    d = wrap_dim(dim, max(input.dim(), 1)) if input.dim() else 0
    if input.dim() and input.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    return mode_result(*apply(MODE, (input,), {"dim": d, "keepdim": bool(keepdim)}))
