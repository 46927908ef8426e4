"""Counting: histc, histogram, histogramdd and unique_consecutive (no gradients, as in PyTorch)."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...return_types import histogram as histogram_result
from ...return_types import histogramdd as histogramdd_result
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


# ---- histogramdd ----------------------------------------------------------------------------


def _check_histogramdd(input, bins, weight) -> int:
    """PyTorch's checks of input, bins and weight (in its order); the number of dims D."""
    if input._data.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{input.dtype._legacy}'")
    dims = input._data.shape[-1]
    if isinstance(bins, (list, tuple)) and len(bins) != dims:
        raise RuntimeError(
            "histogramdd: The size of bins must be equal to the innermost dimension of the input."
        )
    for d, edges in enumerate(bins if isinstance(bins, (list, tuple)) else ()):
        if not isinstance(edges, Tensor):
            continue
        if edges.dtype != input.dtype:
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {_c_name(input)} and bins for dimension {d} "
                f"with dtype {_c_name(edges)}"
            )
        if edges.dim() != 1:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have one dimension, but got "
                f"{edges.dim()} dimensions in the bins tensor for dimension {d}"
            )
        if edges.numel() == 0:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have at least 1 element, but got "
                f"{edges.numel()} elements in the bins tensor for dimension {d}"
            )
    if weight is not None and tuple(weight.shape) != tuple(input.shape[:-1]):
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided it should have the same shape as "
            "the input tensor excluding its innermost dimension, but got input with shape "
            f"{list(input.shape)} and weight with shape {list(weight.shape)}"
        )
    return dims


def _linear_edges(a, counts, range) -> list:  # noqa: A002 - PyTorch's name
    """Each dim's evenly spaced edges over `range` (the data's own when None), an empty
    range widened by a half on each side, as PyTorch (and NumPy) do."""
    dims = a.shape[-1]
    if range is not None and len(range) != 2 * dims:
        raise RuntimeError(
            f"torch.histogramdd: for a {dims}-dimensional histogram range should have "
            f"{2 * dims} elements, but got {len(range)}"
        )
    edges = []
    for d, count in enumerate(counts):
        if count <= 0:
            raise RuntimeError(
                f"torch.histogram(): bins must be > 0, but got {count} for dimension {d}"
            )
        if range is not None:
            low, high = float(range[2 * d]), float(range[2 * d + 1])
        elif a.shape[0]:
            low, high = float(a[:, d].min()), float(a[:, d].max())
        else:
            low, high = 0.0, 1.0
        if not (np.isfinite(low) and np.isfinite(high)):
            raise RuntimeError(
                f"torch.histogramdd: dimension {d}'s range [{low:g}, {high:g}] is not finite"
            )
        if low > high:
            raise RuntimeError(
                "torch.histogramdd: min should not exceed max, but got min "
                f"{low:g} max {high:g} for dimension {d}"
            )
        if low == high:
            low, high = low - 0.5, high + 0.5
        edges.append(np.linspace(low, high, count + 1).astype(a.dtype))
    return edges


def _bin_index(column, edges):
    """Each value's bin, the last edge in the last bin; -1 outside [first, last] edge."""
    index = np.searchsorted(edges, column, side="right") - 1
    index = np.where(column == edges[-1], len(edges) - 2, index)
    inside = (column >= edges[0]) & (column <= edges[-1])
    return np.where(inside, index, -1)


@public(method=False)
def histogramdd(input, bins, *, range=None, weight=None, density: bool = False):  # noqa: A002
    """Matches `torch.histogramdd`: the histogram of the points in `input`'s rows (the last dim
    holds the coordinates); bins per dim as a count, counts, or edge tensors."""
    dims = _check_histogramdd(input, bins, weight)
    a = input._data.reshape(-1, dims)
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor):
        edges = [b._data.astype(a.dtype) for b in bins]
    else:
        counts = list(bins) if isinstance(bins, (list, tuple)) else [int(bins)] * dims
        edges = _linear_edges(a, counts, range)
    shape = tuple(len(e) - 1 for e in edges)
    index = np.stack([_bin_index(a[:, d], e) for d, e in enumerate(edges)], -1)
    keep = (index >= 0).all(-1)
    flat = np.ravel_multi_index(tuple(index[keep].T), shape) if keep.any() else np.zeros(0, int)
    w = None if weight is None else weight._data.reshape(-1)[keep]
    hist = np.bincount(flat, weights=w, minlength=int(np.prod(shape))).astype(a.dtype)
    hist = hist.reshape(shape)
    if density:
        volume = np.ones((), a.dtype)
        for e in edges:
            volume = np.multiply.outer(volume, np.diff(e))
        hist = (hist / hist.sum() / volume).astype(a.dtype)
    return histogramdd_result(Tensor._wrap(hist), tuple(Tensor._wrap(e) for e in edges))
