"""Counting and searching: bincount, isin, unique, searchsorted, bucketize (no gradients)."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ..shape.reshaping import wrap_dim
from ..table.argument_errors import type_name
from ..table.surface import public


@public
def bincount(input, weights=None, minlength=0):
    """Matches `torch.bincount`: counts (or summed weights) of each non-negative integer."""
    x = input._data
    if x.dtype.kind not in "iu":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{input.dtype._legacy}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if x.ndim == 1 and x.size == 0:  # counts of nothing: int64 zeros, with or without weights
        return Tensor._wrap(np.zeros(minlength, np.int64))
    if x.ndim != 1 or x.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights._data.ndim != 1 or weights._data.size != x.size):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights is None:
        return Tensor._wrap(np.bincount(x, minlength=minlength).astype(np.int64))
    w = weights._data
    # float weights keep their dtype, any other weights count in double (as PyTorch)
    out_dtype = w.dtype if w.dtype.kind == "f" else np.float64
    return Tensor._wrap(np.bincount(x, weights=w, minlength=minlength).astype(out_dtype))


@public
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Matches `torch.isin`: whether each element is among `test_elements`."""
    a = elements._data if isinstance(elements, Tensor) else np.asarray(elements)
    b = test_elements._data if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return Tensor._wrap(np.isin(a, b, assume_unique=assume_unique, invert=invert))


@public
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """Matches `torch.unique`: the distinct values, sorted (as PyTorch on the CPU)."""
    if type(sorted) is not bool:  # PyTorch's parser takes only a bool here
        raise TypeError(f"_unique2(): argument 'sorted' must be bool, not {type_name(sorted)}")
    x = input._data
    if dim is None:
        values, inverse, counts = np.unique(
            x.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False
        )
        inverse = inverse.reshape(x.shape)
    else:
        d = wrap_dim(dim, x.ndim)
        values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, axis=d)
        inverse = inverse.reshape(-1)
    out = [Tensor._wrap(values)]
    if return_inverse:
        out.append(Tensor._wrap(inverse.astype(np.int64)))
    if return_counts:
        out.append(Tensor._wrap(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


@public
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """Matches `torch.searchsorted`: insertion points of `input` in each sorted row."""
    if side is not None:
        right = side == "right"
    seq = sorted_sequence._data
    values = input._data if isinstance(input, Tensor) else np.asarray(input)
    _check_searchsorted(seq, values)
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter._data, axis=-1)
    mode = "right" if right else "left"
    if seq.ndim == 1:
        result = np.searchsorted(seq, values, side=mode)
    else:
        rows = seq.reshape(-1, seq.shape[-1])
        vals = values.reshape(rows.shape[0], -1)
        result = np.stack([np.searchsorted(r, v, side=mode) for r, v in zip(rows, vals)])
        result = result.reshape(values.shape)
    return Tensor._wrap(np.asarray(result, np.int32 if out_int32 else np.int64))


def _check_searchsorted(seq, values) -> None:
    if values.ndim == 0 and seq.ndim != 1:
        raise RuntimeError(
            f"torch.searchsorted(): input value can be a scalar only when "
            f"boundaries tensor dimension is 1, but we got boundaries tensor "
            f"dim({seq.ndim}) and input value's dim({values.ndim}) "
            f"numel({values.size})"
        )
    if seq.ndim == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive "
            "dimension, but got 0 dimension"
        )
    if seq.ndim > 1 and (values.ndim != seq.ndim or values.shape[:-1] != seq.shape[:-1]):
        raise RuntimeError(
            f"torch.searchsorted(): boundaries tensor should be 1 dimension or "
            f"the first N-1 dimensions of boundaries tensor and input value "
            f"tensor must match, but we got boundaries tensor {list(seq.shape)} "
            f"and input value tensor {list(values.shape)}"
        )


@public
def bucketize(input, boundaries, *, out_int32=False, right=False):
    """Matches `torch.bucketize`: the bucket of each value among 1-d sorted boundaries."""
    if boundaries._data.ndim != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})"
        )
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


# ---- the cross product ------------------------------------------------------------------------
