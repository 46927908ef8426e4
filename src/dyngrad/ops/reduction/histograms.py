"""Counting: histc, histogram and unique_consecutive (no gradients, as in PyTorch)."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...return_types import histogram as histogram_result
from ..shape.reshaping import wrap_dim
from ..table.surface import public


def _float_only(input) -> None:
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{input.dtype._legacy}'")


def _c_name(t) -> str:  # the C++ type name PyTorch's message prints
    return {"float64": "double", "float32": "float", "int64": "long int"}.get(
        str(t.dtype).split(".")[-1], str(t.dtype)
    )


def _edges(a, bins: int, low, high):
    if low == high and a.size:
        low, high = a.min(), a.max()
    if low == high:  # PyTorch widens an empty range by one on each side
        low, high = low - 1, high + 1
    return a.dtype.type(low), a.dtype.type(high)


def _counts(a, bins: int, low, high, weight=None):
    # PyTorch's bin: floor((x - low) * bins / (high - low)), the top edge in the last bin
    inside = (a >= low) & (a <= high)
    pos = ((a[inside] - low) * bins / (high - low)).astype(np.int64)
    pos = np.minimum(pos, bins - 1)
    w = None if weight is None else weight[inside]
    return np.bincount(pos, weights=w, minlength=bins).astype(a.dtype)


@public
def histc(input, bins: int = 100, min=0, max=0):  # noqa: A002 - PyTorch's names
    """Matches `torch.histc`: counts in `bins` equal bins over [min, max] (the data's range
    when min == max); values outside are ignored."""
    _float_only(input)
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dim 0")
    a = input._data.reshape(-1)
    low, high = _edges(a, bins, min, max)
    if low > high:
        raise RuntimeError(
            f"torch.histc(): max must be larger than min, but got min {low} max {high}"
        )
    return Tensor._wrap(_counts(a, bins, low, high))


@public
def histogram(input, bins=100, *, range=None, weight=None, density: bool = False, out=None):  # noqa: A002
    """Matches `torch.histogram`: (hist, bin_edges), bins a count or the edges themselves."""
    _float_only(input)
    a = input._data.reshape(-1)
    w = None if weight is None else weight._data.reshape(-1)
    if isinstance(bins, Tensor):
        if bins.dtype != input.dtype:
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {_c_name(input)} and bins for dimension 0 "
                f"with dtype {_c_name(bins)}"
            )
        edges = bins._data.astype(a.dtype)
        hist = np.histogram(a, edges, weights=w)[0].astype(a.dtype)
    else:
        low, high = range if range is not None else (0, 0)
        low, high = _edges(a, bins, low, high)
        edges = np.linspace(low, high, bins + 1, dtype=a.dtype)
        hist = _counts(a, bins, low, high, w)
    if density:
        hist = (hist / (hist.sum() * np.diff(edges))).astype(a.dtype)
    return histogram_result(Tensor._wrap(hist), Tensor._wrap(edges))


@public
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Matches `torch.unique_consecutive`: drops each run of equal values (or slices along
    `dim`) but its first."""
    a = input._data
    if dim is None:
        flat = a.reshape(-1)
        starts = np.ones(flat.shape[0], bool)
        starts[1:] = flat[1:] != flat[:-1]
        values = flat[starts]
        inverse_shape = a.shape
    else:
        d = wrap_dim(dim, a.ndim)
        moved = np.moveaxis(a, d, 0).reshape(a.shape[d], -1)
        starts = np.ones(moved.shape[0], bool)
        starts[1:] = (moved[1:] != moved[:-1]).any(axis=1)
        values = np.compress(starts, a, axis=d)
        inverse_shape = (a.shape[d],)
    out = [Tensor._wrap(np.ascontiguousarray(values))]
    if return_inverse:
        inverse = (np.cumsum(starts) - 1).reshape(inverse_shape).astype(np.int64)
        out.append(Tensor._wrap(inverse))
    if return_counts:
        bounds = np.append(np.flatnonzero(starts), starts.shape[0])
        out.append(Tensor._wrap(np.diff(bounds).astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)
