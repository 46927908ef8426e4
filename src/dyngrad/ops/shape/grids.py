"""Shape and counting utilities: broadcast_shapes/broadcast_tensors, meshgrid, ravel, diff,
tril/triu_indices, bincount, isin, unique, searchsorted/bucketize, and the cross product.

The differentiable ones are compositions of table ops (their nodes are PyTorch's: a meshgrid
output is ExpandBackward0 over ViewBackward0, diff is SubBackward0), except the cross product,
which is its own row as in PyTorch (LinalgCrossBackward0).
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._tensor import Tensor
from ...size import Size
from ..reduction.reduce_ops import expand_reduced, reduce_dims
from ..table import promotion
from ..table.argument_errors import type_name
from ..table.arguments import as_ints
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .joining import cat
from .reshaping import UNSAFE_VIEW, wrap_dim

# ---- broadcasting and grids -------------------------------------------------------------------


@public(method=False)
def broadcast_shapes(*shapes):
    """Matches `torch.broadcast_shapes`."""
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    result: list = []
    for index, shape in enumerate(shapes):
        for i in range(1, len(shape) + 1):
            size = shape[-i]
            if size < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if i > len(result):
                result.insert(0, size)
            elif result[-i] == 1:
                result[-i] = size
            elif size != 1 and size != result[-i]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {size} at -{i}! Mismatching "
                    f"argument at index {index} had {tuple(shape)}; but expected shape should be "
                    f"broadcastable to {list(result)}")
    return Size(tuple(result))


@public(method=False)
def broadcast_tensors(*tensors):
    """Matches `torch.broadcast_tensors`: each input expanded to the common shape."""
    shape = broadcast_shapes(*(t._data.shape for t in tensors))
    return tuple(t.expand(*shape) for t in tensors)


@public(method=False)
def meshgrid(*tensors, indexing=None):
    """Matches `torch.meshgrid`: 'ij' (the default, with PyTorch's warning) or 'xy'."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(tensors)
    if swap:  # 'xy' is 'ij' with the first two inputs swapped, and their grids swapped back
        order[0], order[1] = order[1], order[0]
    sizes = [t._data.size for t in order]
    grids = []
    for i, t in enumerate(order):
        shape = [1] * len(order)
        shape[i] = -1
        grids.append(t.view(*shape).expand(*sizes))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


@public
def ravel(input):
    """Matches `torch.ravel`: contiguous, then viewed flat (a view when already contiguous)."""
    return input.contiguous().view(-1)


@public
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """Matches `torch.diff`: the n-th forward difference along `dim`."""
    d = wrap_dim(dim, input._data.ndim)
    if prepend is not None or append is not None:
        parts = [p for p in (prepend, input, append) if p is not None]
        input = cat(parts, d)
    for _ in range(n):
        length = input._data.shape[d]
        input = input.narrow(d, 1, max(length - 1, 0)) - input.narrow(d, 0, max(length - 1, 0))
    return input


# ---- indices and counting ---------------------------------------------------------------------


def _index_pairs(rows, cols, mask_fn, dtype):
    r, c = np.nonzero(mask_fn(np.ones((rows, cols), bool)))
    np_dtype = np.int64 if dtype is None else dtype.np
    return Tensor._wrap(np.stack([r, c]).astype(np_dtype))


@public(method=False)
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """Matches `torch.tril_indices`: the (2, N) coordinates of the lower triangle."""
    return _index_pairs(row, col, lambda m: np.tril(m, offset), dtype)


@public(method=False)
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """Matches `torch.triu_indices`: the (2, N) coordinates of the upper triangle."""
    return _index_pairs(row, col, lambda m: np.triu(m, offset), dtype)


@public
def bincount(input, weights=None, minlength=0):
    """Matches `torch.bincount`: counts (or summed weights) of each non-negative integer."""
    x = input._data
    if x.dtype.kind not in "iu":
        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{input.dtype._legacy}'")
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
        values, inverse, counts = np.unique(x.reshape(-1), return_inverse=True,
                                            return_counts=True, equal_nan=False)
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
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
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
        raise RuntimeError(f"torch.searchsorted(): input value can be a scalar only when "
                           f"boundaries tensor dimension is 1, but we got boundaries tensor "
                           f"dim({seq.ndim}) and input value's dim({values.ndim}) "
                           f"numel({values.size})")
    if seq.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    if seq.ndim > 1 and (values.ndim != seq.ndim or values.shape[:-1] != seq.shape[:-1]):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or "
                           f"the first N-1 dimensions of boundaries tensor and input value "
                           f"tensor must match, but we got boundaries tensor {list(seq.shape)} "
                           f"and input value tensor {list(values.shape)}")


@public
def bucketize(input, boundaries, *, out_int32=False, right=False):
    """Matches `torch.bucketize`: the bucket of each value among 1-d sorted boundaries."""
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


# ---- the cross product ------------------------------------------------------------------------

CROSS = defop(
    "linalg_cross",
    lambda xp, x, y, *, dim: xp.cross(x, y, axis=dim),
    {"x": lambda g, y, dim: apply(CROSS, (y, g), {"dim": dim}),
     "y": lambda g, x, dim: apply(CROSS, (g, x), {"dim": dim})},
    promote=promotion.binary,
)


def linalg_cross(input, other, *, dim=-1):
    """Matches `torch.linalg.cross`: the cross product of 3-vectors along `dim`."""
    a, b = input._data.shape, other._data.shape
    if len(a) != len(b):
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, len(a))
    if a[d] != 3 or b[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a[d]} and {b[d]}")
    return apply(CROSS, (input, other), {"dim": d - len(a)})


@public
def cross(input, other, dim=None):
    """Matches `torch.cross`: without `dim`, the first dim of size 3 (with PyTorch's warning)."""
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
                      "The default value of dim will change to agree with that of linalg.cross "
                      "in a future release.", UserWarning, stacklevel=2)
        shape = broadcast_shapes(input._data.shape, other._data.shape)
        dim = next((i for i, s in enumerate(shape) if s == 3), -1)
    return linalg_cross(input, other, dim=dim)


# ---- nan-ignoring reductions, rot90 -------------------------------------------------------------


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
    return apply(NANSUM, (input,), {"dim": dims, "keepdim": keepdim,
                                    "dtype": None if dtype is None else dtype.np})


@public
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """Matches `torch.nanmean`: nansum over the count of non-nan values (DivBackward0)."""
    if dim is not None:
        as_ints(dim)  # a dim of the wrong type is a TypeError before the dtype is looked at
    x = input if dtype is None else input.to(dtype)
    if not (x.is_floating_point() or x.is_complex()):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype "
                           f"but got {x.dtype._legacy}")
    kept = ~x.isnan()
    count = kept.sum() if dim is None else kept.sum(dim, keepdim=keepdim)
    return nansum(x, dim, keepdim) / count


def _rot90_fwd(xp, x, *, k, dims):
    return xp.ascontiguousarray(xp.rot90(x, k, axes=dims))


ROT90 = defop("rot90", _rot90_fwd,
              {"x": lambda g, k, dims: apply(ROT90, (g,), {"k": -k, "dims": dims})},
              node="Rot90Backward0")


@public
def rot90(input, k=1, dims=(0, 1)):
    """Matches `torch.rot90`: k quarter turns from dims[0] towards dims[1]."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    ndim = input._data.ndim
    if ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    d0, d1 = (wrap_dim(d, ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    return apply(ROT90, (input,), {"k": int(k) % 4, "dims": (d0, d1)})


@public
def kron(input, other):
    """Matches `torch.kron`: the Kronecker product, as PyTorch forms it (interleaved unit dims,
    one product, an unsafe view: UnsafeViewBackward0 over MulBackward0)."""
    a, b = input._data.shape, other._data.shape
    ndim = max(len(a), len(b))
    a = (1,) * (ndim - len(a)) + a
    b = (1,) * (ndim - len(b)) + b
    a_view = tuple(s for size in a for s in (size, 1))
    b_view = tuple(s for size in b for s in (1, size))
    product = (apply(UNSAFE_VIEW, (input,), {"shape": a_view})
               * apply(UNSAFE_VIEW, (other,), {"shape": b_view}))
    shape = tuple(x * y for x, y in zip(a, b))
    try:  # the product keeps a transposed input's layout, which PyTorch's view then refuses
        np.reshape(product._data, shape, copy=False)
    except ValueError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        ) from None
    return apply(UNSAFE_VIEW, (product,), {"shape": shape})
