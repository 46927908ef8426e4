"""Building and taking apart: select/slice/diagonal_scatter (the functional forms of writing
into a view), block_diag, hsplit/vsplit/dsplit, diagflat, cartesian_prod, combinations and
unravel_index."""

from __future__ import annotations

import itertools

import numpy as np

from ..._tensor import Tensor
from ..creation.factories import zeros_like
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .diagonal import diag_embed
from .grids import meshgrid
from .joining import _promote_all, stack, tensor_split
from .reshaping import wrap_dim


def _select_region(shape, dim, index):
    region = [slice(None)] * len(shape)
    region[dim] = index
    return tuple(region)


def _slice_region(shape, dim, start, end, step):
    region = [slice(None)] * len(shape)
    region[dim] = slice(start, end, step)
    return tuple(region)


def _diagonal_target(out, offset, dim1, dim2):
    # a writable view of the diagonal, as the last axis: moveaxis, then fancy-free strides
    moved = np.moveaxis(out, (dim1, dim2), (-2, -1))
    rows, cols = moved.shape[-2], moved.shape[-1]
    n = max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    return moved, (Ellipsis, np.arange(r0, r0 + n), np.arange(c0, c0 + n))


def _scatter_fwd(region_of):
    def fwd(xp, x, src, **attrs):
        out = x.copy()
        target, index = region_of(out, **attrs)
        target[index] = src
        return out

    return fwd


def _region_select(out, *, dim, index):
    return out, _select_region(out.shape, dim, index)


def _region_slice(out, *, dim, start, end, step):
    return out, _slice_region(out.shape, dim, start, end, step)


def _region_diagonal(out, *, offset, dim1, dim2):
    return _diagonal_target(out, offset, dim1, dim2)


SELECT_SCATTER = defop(
    "select_scatter",
    lambda xp, x, src, *, dim, index: _scatter_fwd(_region_select)(
        xp, x, src, dim=dim, index=index
    ),
    {
        "x": lambda g, src, dim, index: select_scatter(
            g, zeros_like(g.select(dim, index)), dim, index
        ),
        "src": lambda g, dim, index: g.select(dim, index),
    },
    promote=_promote_all,
)
SLICE_SCATTER = defop(
    "slice_scatter",
    lambda xp, x, src, *, dim, start, end, step: _scatter_fwd(_region_slice)(
        xp, x, src, dim=dim, start=start, end=end, step=step
    ),
    {
        "x": lambda g, dim, start, end, step: slice_scatter(
            g, zeros_like(g[_slice_region(g.shape, dim, start, end, step)]), dim, start, end, step
        ),
        "src": lambda g, dim, start, end, step: g[_slice_region(g.shape, dim, start, end, step)],
    },
    promote=_promote_all,
)
DIAGONAL_SCATTER = defop(
    "diagonal_scatter",
    lambda xp, x, src, *, offset, dim1, dim2: _scatter_fwd(_region_diagonal)(
        xp, x, src, offset=offset, dim1=dim1, dim2=dim2
    ),
    {
        "x": lambda g, offset, dim1, dim2: diagonal_scatter(
            g, zeros_like(g.diagonal(offset, dim1, dim2)), offset, dim1, dim2
        ),
        "src": lambda g, offset, dim1, dim2: g.diagonal(offset, dim1, dim2),
    },
    promote=_promote_all,
)


def _check_src(src, expected: tuple) -> None:
    if tuple(src.shape) != tuple(expected):
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. "
            f"src size = {list(src.shape)}, slice size = {list(expected)}"
        )


@public
def select_scatter(input, src, dim: int, index: int):
    """Matches `torch.select_scatter`: a copy of input with `src` written at input[..., index]."""
    dim = wrap_dim(dim, input.dim())
    index = index + input.shape[dim] if index < 0 else index
    _check_src(src, input._data[_select_region(input.shape, dim, index)].shape)
    return apply(SELECT_SCATTER, (input, src), {"dim": dim, "index": index})


@public
def slice_scatter(input, src, dim: int = 0, start=None, end=None, step: int = 1):
    """Matches `torch.slice_scatter`: a copy of input with `src` written at a slice."""
    dim = wrap_dim(dim, input.dim())
    attrs = {"dim": dim, "start": start, "end": end, "step": step}
    _check_src(src, input._data[_slice_region(input.shape, dim, start, end, step)].shape)
    return apply(SLICE_SCATTER, (input, src), attrs)


@public
def diagonal_scatter(input, src, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """Matches `torch.diagonal_scatter`: a copy of input with `src` written on a diagonal."""
    dim1, dim2 = wrap_dim(dim1, input.dim()), wrap_dim(dim2, input.dim())
    _check_src(src, input._data.diagonal(offset, dim1, dim2).shape)
    return apply(DIAGONAL_SCATTER, (input, src), {"offset": offset, "dim1": dim1, "dim2": dim2})


# ---- block_diag -----------------------------------------------------------------------------


def _block_diag_fwd(xp, *tensors, blocks):
    rows = sum(b[2] for b in blocks)
    cols = sum(b[3] for b in blocks)
    dtype = tensors[0].dtype if tensors else np.float32
    out = xp.zeros((rows, cols), dtype)
    for t, (r, c, h, w) in zip(tensors, blocks):
        out[r : r + h, c : c + w] = t.reshape(h, w)
    return out


def _block_diag_grad(g, i, blocks, tensors_shape):
    r, c, h, w = blocks[i]
    return g[r : r + h, c : c + w].reshape(tensors_shape)


BLOCK_DIAG = defop(
    "block_diag",
    _block_diag_fwd,
    {"tensors": _block_diag_grad},
    promote=_promote_all,
)


@public(method=False)
def block_diag(*tensors):
    """Matches `torch.block_diag`: the tensors (0-, 1- or 2-D) along a block diagonal."""
    blocks, r, c = [], 0, 0
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                f"Input {i} has {t.dim()} dimensions"
            )
        h, w = (1, 1) if t.dim() == 0 else (1, t.shape[0]) if t.dim() == 1 else tuple(t.shape)
        blocks.append((r, c, h, w))
        r, c = r + h, c + w
    if not tensors:
        return Tensor._wrap(np.zeros((1, 0), np.float32))
    return apply(BLOCK_DIAG, tensors, {"blocks": tuple(blocks)})


# ---- splits, diagflat, products of sets -----------------------------------------------------


def _split_along(name, input, indices_or_sections, dim, min_dims):
    if input.dim() < min_dims:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a "
            f"tensor with {input.dim()} dimensions!"
        )
    if isinstance(indices_or_sections, int):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                f"dimension {size} is not divisible by the split_size {indices_or_sections}!"
            )
    return tensor_split(input, indices_or_sections, dim)


@public
def hsplit(input, indices_or_sections):
    """Matches `torch.hsplit`: split along dim 1 (dim 0 of a vector)."""
    return _split_along("hsplit", input, indices_or_sections, 1 if input.dim() > 1 else 0, 1)


@public
def vsplit(input, indices_or_sections):
    """Matches `torch.vsplit`: split along dim 0 (at least 2-D)."""
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


@public
def dsplit(input, indices_or_sections):
    """Matches `torch.dsplit`: split along dim 2 (at least 3-D)."""
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


@public
def diagflat(input, offset: int = 0):
    """Matches `torch.diagflat`: the flattened input on a diagonal of a square matrix."""
    return diag_embed(input.reshape(-1), offset)


@public(method=False)
def cartesian_prod(*tensors):
    """Matches `torch.cartesian_prod`: every combination of one element from each vector."""
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.flatten() for g in grids], 1)


@public(method=False)
def combinations(input, r: int = 2, with_replacement: bool = False):
    """Matches `torch.combinations`: the length-r combinations of a vector's elements."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty(0)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = np.array(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return stack([input[Tensor._wrap(rows[:, k].copy())] for k in range(r)], 1)


@public(method=False)
def unravel_index(indices, shape):
    """Matches `torch.unravel_index`: flat indices as a tuple of coordinate tensors."""
    if not isinstance(indices, Tensor):
        indices = Tensor._wrap(np.asarray(indices))
    if indices._data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    flat = indices._data.astype(np.int64)
    coords = []
    for size in reversed(shape):
        coords.append(np.remainder(flat, size))
        flat = np.floor_divide(flat, size)
    return tuple(Tensor._wrap(np.asarray(c)) for c in reversed(coords))
