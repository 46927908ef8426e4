"""Statistics: var, std, var_mean, std_mean (with `correction`), median and nanmedian."""

from __future__ import annotations

import functools
import warnings

import numpy as np

from ...return_types import _result_type
from ...return_types import median as median_result
from ...return_types import nanmedian as nanmedian_result
from ...runtime import dtypes
from ..shape.reshaping import wrap_dim
from ..shape.scatter import scatter_into_zeros
from ..table.argument_errors import ALL_DIMS
from ..table.arguments import as_ints
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from . import select_order
from .reduce_ops import amax, amin, expand_reduced, reduce_dims


def _count(shape, dim) -> int:
    n = 1
    for d in dim:
        n *= shape[d]
    return n


def _var_fwd(xp, x, *, dim, correction, keepdim):
    n = _count(x.shape, dim)
    with np.errstate(invalid="ignore", divide="ignore"):  # no elements, or correction >= n
        mean = xp.sum(x, axis=dim, keepdims=True) / n
        dev = x - mean
        total = xp.sum(dev * dev, axis=dim, keepdims=keepdim)
        # no elements at all is NaN whatever the correction, as PyTorch's
        return (total / (max(n - correction, 0) if n else 0)).astype(x.dtype, copy=False)


def _std_fwd(xp, x, *, dim, correction, keepdim):
    return xp.sqrt(_var_fwd(xp, x, dim=dim, correction=correction, keepdim=keepdim))


def _with_mean(fwd):
    def both(xp, x, *, dim, correction, keepdim):
        n = _count(x.shape, dim)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = (xp.sum(x, axis=dim, keepdims=keepdim) / n).astype(x.dtype, copy=False)
        return fwd(xp, x, dim=dim, correction=correction, keepdim=keepdim), mean

    return both


def _var_grad(g, x, dim, correction, keepdim):
    # d var / dx_i = 2 (x_i - mean) / (n - correction)
    n = _count(x.shape, dim)
    return (
        expand_reduced(g, x.shape, dim, keepdim)
        * 2
        * (x - x.mean(dim, keepdim=True))
        / (n - correction)
    )


def _std_grad(g, x, out, dim, correction, keepdim):
    # d std / dx_i = (x_i - mean) / ((n - correction) std); PyTorch gives 0 where std is 0
    n = _count(x.shape, dim)
    std = expand_reduced(out, x.shape, dim, keepdim)
    scaled = (expand_reduced(g, x.shape, dim, keepdim) / std).masked_fill(std == 0, 0)
    return scaled * (x - x.mean(dim, keepdim=True)) / (n - correction)


def _mean_grad(g, x, dim, keepdim):
    return expand_reduced(g, x.shape, dim, keepdim) / _count(x.shape, dim)


def _pair_grad(first, g, x, dim, keepdim):
    grad = first() if g[0] is not None else None
    if g[1] is not None:
        grad = (
            _mean_grad(g[1], x, dim, keepdim)
            if grad is None
            else (grad + _mean_grad(g[1], x, dim, keepdim))
        )
    return grad


VAR = defop("var", _var_fwd, {"x": _var_grad})
STD = defop("std", _std_fwd, {"x": _std_grad})
VAR_MEAN = defop(
    "var_mean",
    _with_mean(_var_fwd),
    {
        "x": lambda g, x, dim, correction, keepdim: _pair_grad(
            lambda: _var_grad(g[0], x, dim, correction, keepdim), g, x, dim, keepdim
        )
    },
    outputs=2,
)
STD_MEAN = defop(
    "std_mean",
    _with_mean(_std_fwd),
    {
        "x": lambda g, x, out, dim, correction, keepdim: _pair_grad(
            lambda: _std_grad(g[0], x, out[0], dim, correction, keepdim), g, x, dim, keepdim
        )
    },
    outputs=2,
)


def _var_args(name, input, dim, unbiased, keepdim, correction):
    if isinstance(dim, bool):  # var(True): the legacy `unbiased` overload
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got both "
            "unbiased and correction"
        )
    if dim is not None:
        as_ints(dim)  # a dim of the wrong type is a TypeError before the dtype is looked at
    if not (input.is_floating_point() or input.is_complex()):
        kind = name if name.endswith("_mean") else "std and var"
        raise RuntimeError(f"{kind} only support floating point and complex dtypes")
    dims = reduce_dims(input, dim)
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    if _count(input._data.shape, dims) - correction <= 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
            "less than the reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    return {"dim": dims, "correction": correction, "keepdim": keepdim}


@public
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Matches `torch.var`: `correction=1` (Bessel's) unless `unbiased=False`/`correction=`."""
    return apply(VAR, (input,), _var_args("var", input, dim, unbiased, keepdim, correction))


@public
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Matches `torch.std`: the gradient is 0 where the std is 0, as in PyTorch."""
    return apply(STD, (input,), _var_args("std", input, dim, unbiased, keepdim, correction))


@public(method=False)
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Matches `torch.var_mean`: a plain `(var, mean)` tuple from one node."""
    attrs = _var_args("var_mean", input, dim, unbiased, keepdim, correction)
    return apply(VAR_MEAN, (input,), attrs)


@public(method=False)
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Matches `torch.std_mean`."""
    attrs = _var_args("std_mean", input, dim, unbiased, keepdim, correction)
    return apply(STD_MEAN, (input,), attrs)


# ---- median ---------------------------------------------------------------------------------


def _median_index(xp, x, dim):
    # the lower median of a stable sort; a slice with NaN reports its first NaN, as PyTorch
    k = (x.shape[dim] - 1) // 2
    order = xp.argsort(x, axis=dim, kind="stable")
    index = xp.take(order, [k], axis=dim)
    nan = xp.isnan(x) if x.dtype.kind == "f" else None
    if nan is not None and nan.any():
        first_nan = xp.argmax(nan, axis=dim, keepdims=True)
        index = xp.where(nan.any(axis=dim, keepdims=True), first_nan, index)
    return index


def _nanmedian_index(xp, x, dim):
    # the lower median of the values that are not NaN (argsort puts NaN last); a slice of
    # NaN alone reports its first NaN
    order = xp.argsort(x, axis=dim, kind="stable")
    if x.dtype.kind == "f":
        counted = x.shape[dim] - xp.isnan(x).sum(axis=dim, keepdims=True)
    else:
        counted = xp.full((1,) * x.ndim, x.shape[dim])
    k = xp.maximum(counted - 1, 0) // 2
    index = xp.take_along_axis(order, k, axis=dim)
    if x.dtype.kind == "f" and x.shape[dim] and bool((counted == 0).any()):
        # a slice of NaN alone: the position std::nth_element leaves first among n equal
        # values (See Note [Tie order of sort and topk])
        index = xp.where(counted == 0, _all_equal_first(x.shape[dim]), index)
    return index


@functools.lru_cache(maxsize=64)
def _all_equal_first(n: int) -> int:
    key, index = np.zeros(n, np.int64), np.arange(n, dtype=np.int64)
    zero = np.zeros(1, np.int64)
    select_order.select_ranges(key, index, zero, zero, np.array([n], np.int64))
    return int(index[0])


def _median_all(index_of):
    def fwd(xp, x):
        flat = x.reshape(-1)
        if flat.size == 0:
            return xp.asarray(np.nan, dtype=x.dtype)
        return flat[index_of(xp, flat, 0)[0]]

    return fwd


def _median_along(index_of):
    def fwd(xp, x, *, dim, keepdim):
        index = index_of(xp, x, dim)
        values = xp.take_along_axis(x, index, axis=dim)
        if not keepdim:
            values, index = values.squeeze(dim), index.squeeze(dim)
        return values, index.astype(xp.int64)

    return fwd


def _median_dim_grad(g, x_shape, dim, keepdim, out):

    grad, index = g[0], out[1]
    if not keepdim:
        grad, index = grad.unsqueeze(dim), index.unsqueeze(dim)
    return scatter_into_zeros(grad, x_shape, dim, index)


def _ties_share(g, x, out):
    # the gradient shared by the elements equal to the result; a NaN result is shared by
    # the NaNs (PyTorch's evenly_distribute_backward)
    mask = (x == out) | (x.isnan() & out.isnan())
    return g * mask / mask.sum()


MEDIAN = defop("median", _median_all(_median_index), {"x": _ties_share})
MEDIAN_DIM = defop(
    "median_dim",
    _median_along(_median_index),
    {"x": _median_dim_grad},
    node="MedianBackward1",
    outputs=2,
    differentiable=(0,),
)
NANMEDIAN = defop("nanmedian", _median_all(_nanmedian_index), {"x": _ties_share})
NANMEDIAN_DIM = defop(
    "nanmedian_dim",
    _median_along(_nanmedian_index),
    {"x": _median_dim_grad},
    node="NanmedianBackward1",
    outputs=2,
    differentiable=(0,),
)


def _median(ops, result, input, dim, keepdim):
    whole, along = ops
    if dim is ALL_DIMS:
        if input.dtype is dtypes.bool_:
            raise NotImplementedError("\"median_cpu\" not implemented for 'Bool'")
        return apply(whole, (input,))
    ndim = input._data.ndim
    d = wrap_dim(dim, ndim)
    if input.dtype is dtypes.bool_:
        raise NotImplementedError("\"median_out\" not implemented for 'Bool'")
    if ndim == 0:
        return result(*apply(along, (input.reshape(1),), {"dim": 0, "keepdim": False}))
    if input._data.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    return result(*apply(along, (input,), {"dim": d, "keepdim": keepdim}))


@public
def median(input, dim=ALL_DIMS, keepdim=False):
    """Matches `torch.median`: the lower of the two middle values; NaN if there is a NaN.

    Along a dim, ties report the index a stable sort puts in the middle, which may differ
    from PyTorch's (its choice among equal values is unspecified).
    """
    return _median((MEDIAN, MEDIAN_DIM), median_result, input, dim, keepdim)


@public
def nanmedian(input, dim=ALL_DIMS, keepdim=False):
    """Matches `torch.nanmedian`: the median of the values that are not NaN (NaN if all are).

    Among ties, and for a slice of NaN alone, the index is the one PyTorch's selection
    algorithm leaves (and so is where the gradient goes).
    """
    return _median((NANMEDIAN, NANMEDIAN_DIM), nanmedian_result, input, dim, keepdim)


aminmax_result = _result_type("aminmax", ("min", "max"))


@public
def aminmax(input, *, dim=None, keepdim=False):
    """Matches `torch.aminmax`: `(min, max)` over everything or along `dim`."""

    empty = (
        input._data.size == 0
        if dim is None
        else (input._data.ndim and input._data.shape[wrap_dim(dim, input._data.ndim)] == 0)
    )
    if empty:
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the "
            "operation has no identity."
        )
    dims = () if dim is None else dim
    if dim is None and keepdim:
        dims = tuple(range(input._data.ndim))
    return aminmax_result(amin(input, dims, keepdim), amax(input, dims, keepdim))


def _nansum_fwd(xp, x, *, dim, keepdim, dtype):
    if x.dtype.kind in "biu":
        return xp.sum(x, axis=dim, keepdims=keepdim, dtype=dtype or np.int64)
    return xp.nansum(x, axis=dim, keepdims=keepdim, dtype=dtype)


def _nansum_grad(g, x, x_shape, dim, keepdim):
    return expand_reduced(g, x_shape, dim, keepdim) * ~x.isnan()


NANSUM = defop("nansum", _nansum_fwd, {"x": _nansum_grad})


@public
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Matches `torch.nansum`: the sum with nan counted as zero."""
    dims = reduce_dims(input, dim)
    return apply(
        NANSUM,
        (input,),
        {"dim": dims, "keepdim": keepdim, "dtype": None if dtype is None else dtype.np},
    )


@public
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """Matches `torch.nanmean`: nansum over the count of non-nan values (DivBackward0)."""
    if dim is not None:
        as_ints(dim)  # a dim of the wrong type is a TypeError before the dtype is looked at
    x = input if dtype is None else input.to(dtype)
    if not (x.is_floating_point() or x.is_complex()):
        raise RuntimeError(
            f"nanmean(): expected input to have floating point or complex dtype "
            f"but got {x.dtype._legacy}"
        )
    kept = ~x.isnan()
    count = kept.sum() if dim is None else kept.sum(dim, keepdim=keepdim)
    return nansum(x, dim, keepdim) / count
