"""Joining and splitting: cat, stack and their h/v/d forms; split, chunk, unbind.

`split`, `chunk` and `unbind` are one node with one output per piece, each piece a view of
the input; ops/table/views.py refuses in-place writes into them while they need grad, as
PyTorch does.
"""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ..creation.factories import zeros
from ..table import promotion
from ..table.argument_errors import type_name
from ..table.arguments import as_int, as_ints, is_int
from ..table.array_backward import ArrayBackward
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .reshaping import wrap_dim


def _promote_all(arrays: list, args: tuple) -> list:
    dtype = arrays[0].dtype
    if all(a.dtype == dtype for a in arrays):
        return arrays
    target = promotion.result_type(*args).np
    return [a.astype(target) for a in arrays]


def _offset(sizes, i) -> int:
    return sum(s for s in sizes[:i] if s is not None)


def _cat_grad(g, i, dim, sizes, tensors_shape):
    if sizes[i] is None:  # a skipped 1-D empty tensor (PyTorch's legacy rule)
        return g.new_zeros(tensors_shape)
    return g.narrow(dim, _offset(sizes, i), sizes[i])


def _cat_fwd(xp, *tensors, dim, sizes):
    kept = [t for t, s in zip(tensors, sizes) if s is not None]
    return xp.concatenate(kept or tensors, axis=dim)


def _cat_kernel(xp, needs, g, dim, sizes):
    # each input's gradient is its slice of g (Note [Array backwards])
    if None in sizes:
        return None
    lead = (slice(None),) * dim
    grads = []
    start = 0
    for need, size in zip(needs, sizes):
        grads.append(g[lead + (slice(start, start + size),)] if need else None)
        start += size
    return grads


CAT = defop(
    "cat",
    _cat_fwd,
    {"tensors": _cat_grad},
    promote=_promote_all,
    array_backward=ArrayBackward(_cat_kernel),
)
STACK = defop(
    "stack",
    lambda xp, *tensors, dim: xp.stack(tensors, axis=dim),
    {"tensors": lambda g, i, dim: g.select(dim, i)},
    promote=_promote_all,
    array_backward=ArrayBackward(
        lambda xp, needs, g, dim: [
            xp.take(g, i, axis=dim) if need else None for i, need in enumerate(needs)
        ]
    ),
)


def _pieces_grad(g, x_shape, dim, sizes):
    # pieces that got no gradient count as zeros

    parts = []
    for piece, size in zip(g, sizes):
        if piece is None:
            shape = x_shape[:dim] + (size,) + x_shape[dim + 1 :]
            piece = zeros(shape, dtype=next(p for p in g if p is not None).dtype)
        parts.append(piece)
    return cat(parts, dim)


def _split_fwd(xp, x, *, dim, sizes):
    # basic slices, not xp.split: NumPy's array_split costs more than the views themselves
    lead = (slice(None),) * dim
    pieces = []
    start = 0
    for size in sizes:
        pieces.append(x[lead + (slice(start, start + size),)])
        start += size
    return tuple(pieces)


def _unbind_grad(g, x_shape, dim):

    like = next(p for p in g if p is not None)
    shape = x_shape[:dim] + x_shape[dim + 1 :]
    return stack([p if p is not None else zeros(shape, dtype=like.dtype) for p in g], dim)


def _pieces(xp, g, x_shape, dim, sizes):
    # the pieces' gradient arrays, zeros for those that got none
    dtype = next(p for p in g if p is not None).dtype
    return [
        p if p is not None else xp.zeros(x_shape[:dim] + (size,) + x_shape[dim + 1 :], dtype=dtype)
        for p, size in zip(g, sizes)
    ]


_SPLIT_KERNEL = ArrayBackward(
    lambda xp, needs, g, x_shape, dim, sizes: (
        xp.concatenate(_pieces(xp, g, x_shape, dim, sizes), axis=dim),
    )
)
SPLIT = defop(
    "split",
    _split_fwd,
    {"x": lambda g, x_shape, dim, sizes: _pieces_grad(g, x_shape, dim, sizes)},
    outputs=None,
    view=True,
    array_backward=_SPLIT_KERNEL,
)
SPLIT_WITH_SIZES = defop(
    "split_with_sizes",
    _split_fwd,
    {"x": lambda g, x_shape, dim, sizes: _pieces_grad(g, x_shape, dim, sizes)},
    outputs=None,
    view=True,
    array_backward=_SPLIT_KERNEL,
)


def _unbind_kernel(xp, needs, g, x_shape, dim):
    shape = x_shape[:dim] + x_shape[dim + 1 :]
    dtype = next(p for p in g if p is not None).dtype
    return (xp.stack([p if p is not None else xp.zeros(shape, dtype=dtype) for p in g], axis=dim),)


UNBIND = defop(
    "unbind",
    lambda xp, x, *, dim: tuple(xp.moveaxis(x, dim, 0)),
    {"x": lambda g, x_shape, dim: _unbind_grad(g, x_shape, dim)},
    outputs=None,
    view=True,
    array_backward=ArrayBackward(_unbind_kernel),
)


# ---- public functions -----------------------------------------------------------------------


def _tensor_list(tensors, name: str) -> list:
    if isinstance(tensors, Tensor):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"
        )
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
    return tensors


def _cat_sizes(tensors, dim) -> tuple:
    shapes = [t._data.shape for t in tensors]
    ref = next((shape for shape in shapes if shape != (0,)), None)
    if ref is None:
        return tuple(None for _ in tensors)
    rest = ref[:dim] + ref[dim + 1 :]  # what every input must share (one tuple compare each)
    sizes = []
    for i, shape in enumerate(shapes):
        if len(shape) == len(ref) and shape[:dim] + shape[dim + 1 :] == rest:
            sizes.append(shape[dim])
        elif shape == (0,) and len(ref) != 1:
            sizes.append(None)
        else:
            _raise_cat_mismatch(ref, shape, i, dim)
    return tuple(sizes)


def _raise_cat_mismatch(ref: tuple, shape: tuple, i: int, dim: int) -> None:
    if len(shape) != len(ref):
        raise RuntimeError(
            f"Tensors must have same number of dimensions: got {len(ref)} and {len(shape)}"
        )
    a, b = next(ab for d, ab in enumerate(zip(ref, shape)) if d != dim and ab[0] != ab[1])
    raise RuntimeError(
        f"Sizes of tensors must match except in dimension {dim}. Expected size {a} "
        f"but got size {b} for tensor number {i} in the list."
    )


@public(method=False)
def cat(tensors, dim=0, *, out=None):
    """Matches `torch.cat`: inputs are promoted to one dtype; 1-D empty tensors are skipped."""
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    ref = next((t for t in tensors if t._data.shape != (0,)), tensors[0])
    d = wrap_dim(dim, ref._data.ndim)
    return apply(CAT, tuple(tensors), {"dim": d, "sizes": _cat_sizes(tensors, d)})


concat = public(cat, name="concat", method=False)
concatenate = public(
    lambda tensors, axis=0, out=None: cat(tensors, axis), name="concatenate", method=False
)


@public(method=False)
def stack(tensors, dim=0, *, out=None):
    """Matches `torch.stack`."""
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != first:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got "
                f"{list(first)} at entry 0 and {list(t._data.shape)} at entry {i}"
            )
    d = wrap_dim(dim, len(first) + 1)
    return apply(STACK, tuple(tensors), {"dim": d})


@public(method=False)
def atleast_1d(*tensors):
    """Matches `torch.atleast_1d`."""
    return _atleast(tensors, lambda t: t.reshape(1) if t._data.ndim == 0 else t)


@public(method=False)
def atleast_2d(*tensors):
    """Matches `torch.atleast_2d`."""

    def lift(t):
        if t._data.ndim == 0:
            return t.reshape(1, 1)
        return t.unsqueeze(0) if t._data.ndim == 1 else t

    return _atleast(tensors, lift)


@public(method=False)
def atleast_3d(*tensors):
    """Matches `torch.atleast_3d`: a 1-D tensor becomes (1, n, 1), a matrix (m, n, 1)."""

    def lift(t):
        if t._data.ndim == 0:
            return t.reshape(1, 1, 1)
        if t._data.ndim == 1:
            return t.unsqueeze(0).unsqueeze(-1)
        return t.unsqueeze(-1) if t._data.ndim == 2 else t

    return _atleast(tensors, lift)


def _atleast(tensors, lift):
    if len(tensors) == 1 and not isinstance(tensors[0], Tensor):
        return tuple(lift(t) for t in tensors[0])
    if len(tensors) == 1:
        return lift(tensors[0])
    return tuple(lift(t) for t in tensors)


def _nonempty(tensors, name):
    tensors = _tensor_list(tensors, name)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


@public(method=False)
def hstack(tensors, *, out=None):
    """Matches `torch.hstack`: along dim 0 for 1-D inputs, else dim 1."""
    tensors = [atleast_1d(t) for t in _nonempty(tensors, "hstack")]
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


@public(method=False)
def vstack(tensors, *, out=None):
    """Matches `torch.vstack`."""
    return cat([atleast_2d(t) for t in _nonempty(tensors, "vstack")], 0)


row_stack = public(vstack, name="row_stack", method=False)


@public(method=False)
def dstack(tensors, *, out=None):
    """Matches `torch.dstack`."""
    return cat([atleast_3d(t) for t in _nonempty(tensors, "dstack")], 2)


@public(method=False)
def column_stack(tensors, *, out=None):
    """Matches `torch.column_stack`."""
    tensors = _nonempty(tensors, "column_stack")
    return hstack([t.reshape(-1, 1) if t._data.ndim <= 1 else t for t in tensors])


@public
def split(tensor, split_size_or_sections, dim=0):
    """Matches `torch.split`: equal pieces (the last may be smaller) or the given sizes."""
    if isinstance(split_size_or_sections, (list, tuple)):
        return split_with_sizes(tensor, split_size_or_sections, dim)
    if not is_int(split_size_or_sections):  # PyTorch hands anything else to split_with_sizes
        # `Tensor.split` calls the function form: position 2 however it was called
        raise TypeError(
            f"split_with_sizes(): argument 'split_sizes' (position 2) must be "
            f"tuple of ints, not {type_name(split_size_or_sections)}"
        )
    size = as_int(split_size_or_sections)
    d = _piece_dim(tensor, dim, "split")
    length = tensor._data.shape[d]
    if size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
    if size == 0 and length != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {length}"
        )
    count = max(-(-length // size), 1) if size else 1
    sizes = tuple(min(size, length - k * size) for k in range(count))
    return apply(SPLIT, (tensor,), {"dim": d, "sizes": sizes})


@public
def split_with_sizes(input, split_sizes, dim=0):
    """Matches `torch.split_with_sizes`."""
    sizes = as_ints(split_sizes)
    d = _piece_dim(input, dim, "split")
    length = input._data.shape[d]
    if any(s < 0 for s in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes have only non-negative "
            f"entries, but got split_sizes={list(sizes)}"
        )
    if sum(sizes) != length:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {length} (input tensor's "
            f"size at dimension {d}), but got split_sizes={list(sizes)}"
        )
    return apply(SPLIT_WITH_SIZES, (input,), {"dim": d, "sizes": sizes})


@public
def chunk(input, chunks, dim=0):
    """Matches `torch.chunk`: pieces of ceil(size / chunks), so there may be fewer of them."""
    chunks = as_int(chunks)
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    length = input._data.shape[_piece_dim(input, dim, "chunk")]
    if length == 0:  # PyTorch hands out `chunks` empty pieces here
        return split_with_sizes(input, [0] * chunks, dim)
    return split(input, -(-length // chunks), dim)


@public
def unbind(input, dim=0):
    """Matches `torch.unbind`: one view per index along `dim`, all from one node."""
    d = wrap_dim(dim, input._data.ndim)
    if input._data.ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return apply(UNBIND, (input,), {"dim": d})


def _piece_dim(input, dim, fn: str) -> int:
    if input._data.ndim == 0:
        raise RuntimeError(f"{fn} expects at least a 1-dimensional tensor")
    return wrap_dim(dim, input._data.ndim)


@public
def tensor_split(input, indices_or_sections, dim=0):
    """Matches `torch.tensor_split`: each piece a slice view (SliceBackward0)."""
    if input._data.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = wrap_dim(dim, input._data.ndim)
    length = input._data.shape[d]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        small, extra = divmod(length, n)
        bounds = np.cumsum([0] + [small + 1] * extra + [small] * (n - extra)).tolist()
    else:
        bounds = [0] + [int(i) for i in indices_or_sections] + [length]
    pieces = []
    for start, stop in zip(bounds[:-1], bounds[1:]):
        start, stop = _clamp(start, length), _clamp(stop, length)
        pieces.append(input.narrow(d, start, max(stop - start, 0)))
    return tuple(pieces)


def _clamp(index: int, length: int) -> int:
    index = index + length if index < 0 else index
    return max(0, index if index < length else length)
