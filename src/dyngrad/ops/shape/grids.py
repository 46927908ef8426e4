"""Broadcasting and grids: broadcast_shapes/broadcast_tensors, meshgrid, ravel, diff,
tril/triu_indices, rot90.

They are compositions of table ops, so their nodes are PyTorch's (a meshgrid output is
ExpandBackward0 over ViewBackward0, diff is SubBackward0).
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._tensor import Tensor
from ...size import Size
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .joining import cat
from .reshaping import wrap_dim

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
                    f"broadcastable to {list(result)}"
                )
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
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the "
            "indexing argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}"
            )
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


def _rot90_fwd(xp, x, *, k, dims):
    # PyTorch's layout: an odd turn is a flipped copy seen transposed (not contiguous)
    if k % 2 == 0:
        return xp.ascontiguousarray(xp.rot90(x, k, axes=dims))
    flipped = xp.ascontiguousarray(xp.flip(x, dims[1] if k == 1 else dims[0]))
    return xp.swapaxes(flipped, *dims)


ROT90 = defop(
    "rot90",
    _rot90_fwd,
    {"x": lambda g, k, dims: apply(ROT90, (g,), {"k": -k, "dims": dims})},
    node="Rot90Backward0",
)


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
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}"
        )
    return apply(ROT90, (input,), {"k": int(k) % 4, "dims": (d0, d1)})
