"""Ops on a tensor's memory itself: as_strided(_) (any size and stride over the storage),
set_, resize_(_as_), and the unsafe splits (pieces sharing memory without being views).

# Note [Storage]
# A tensor's storage is its base's array (its own when it is not a view); `storage_offset()`
# counts elements from that array's first one. `as_strided` reads that memory with the sizes,
# strides and offset it is given, checked against the storage's size as PyTorch checks them.
# Its gradient adds the output's gradient into a buffer over the memory both tensors span and
# reads the input's elements back, each divided by how many input elements share its memory
# (an expanded input): PyTorch's as_strided backward. It is one op, `strided_remap`, whose own
# gradient is another remap (the transposed map), so every order of gradient comes free.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..._tensor import Tensor, VersionCounter
from ...graph.grad_mode import state as grad_state
from ...graph.node import Node
from ...runtime.memory_format import channels_last as _NHWC
from ...runtime.memory_format import check_format, in_format, is_contiguous_as, memory_format
from ...runtime.storage import TypedStorage, UntypedStorage
from ..creation.factories import _leaf, _np_dtype
from ..table.argument_errors import type_name
from ..table.arguments import int_list, is_int
from ..table.errors import c_type_name
from ..table.record import apply, record
from ..table.registry import defop
from ..table.surface import public
from ..table.views import check_inplace_allowed
from .inplace_views import inplace_view
from .joining import _piece_dim, _pieces_grad, _split_fwd, chunk, split, split_with_sizes

# ---- reading memory with given strides ------------------------------------------------------


class _Memory:
    """What an as_strided array is made from: NumPy reads `__array_interface__` and keeps this
    object (so the memory's owner) alive as the new array's base."""

    __slots__ = ("__array_interface__", "owner")


def _owner(a: np.ndarray) -> np.ndarray:
    while True:
        b = a.base
        if isinstance(b, np.ndarray):
            a = b
        elif isinstance(b, _Memory):
            a = b.owner
        else:
            return a


def _span(a: np.ndarray) -> tuple[int, int]:
    """The addresses [lo, hi) an array's elements occupy."""
    start = a.__array_interface__["data"][0]
    if a.size == 0:
        return start, start
    lo = start + sum(min(0, (n - 1) * s) for n, s in zip(a.shape, a.strides))
    hi = start + sum(max(0, (n - 1) * s) for n, s in zip(a.shape, a.strides)) + a.itemsize
    return lo, hi


def _strided(x: np.ndarray, size: tuple, stride: tuple, offset: int) -> np.ndarray:
    """The elements of `x`'s memory at `offset + sum(i_k * stride_k)` (in elements, counted
    from `x`'s first element), as an array sharing that memory."""
    item = x.itemsize
    start = x.__array_interface__["data"][0]
    if math.prod(size):
        start += offset * item
        lo, hi = _span(_owner(x))
        end = start + sum((n - 1) * s for n, s in zip(size, stride)) * item + item
        if start < lo or end > hi:  # the public functions check first; never read past memory
            raise RuntimeError("as_strided: the requested elements lie outside the storage")
    memory = _Memory()
    memory.owner = _owner(x)
    memory.__array_interface__ = {
        "shape": tuple(size),
        "strides": tuple(s * item for s in stride),
        "typestr": f"|V{item}",
        "data": (start, not x.flags.writeable),
        "version": 3,
    }
    return np.asarray(memory).view(x.dtype)


def _positions(shape: tuple, strides: tuple, offset: int) -> np.ndarray:
    """Each element's place in memory (in elements) for a geometry."""
    pos = np.full(shape, offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(shape, strides)):
        pos += (np.arange(n, dtype=np.int64) * s).reshape((n,) + (1,) * (len(shape) - d - 1))
    return pos


def _remap_fwd(xp, v, *, src, dst, size, scale):
    # out[j] = scale[j] * (sum of v[i] over the i with src[i] == dst[j])
    buffer = xp.zeros(size, dtype=v.dtype)
    xp.add.at(buffer, src.reshape(-1), v.reshape(-1))
    out = buffer[dst]
    return out if scale is None else (out * scale).astype(v.dtype, copy=False)


def _remap_grad(g, src, dst, size, scale):
    # the transposed map: scaled, added at dst, read back at src
    return apply(STRIDED_REMAP, (g if scale is None else g * scale,), _remap(dst, src, size, None))


def _remap(src, dst, size, scale) -> dict:
    return {"src": src, "dst": dst, "size": size, "scale": scale}


STRIDED_REMAP = defop("strided_remap", _remap_fwd, {"v": _remap_grad})


def _as_strided_grad(g, x_shape, size, stride, offset, x_strides):
    # See Note [Storage]: positions counted from x's first element, shifted to start at 0
    out_pos = _positions(size, stride, offset)
    in_pos = _positions(x_shape, x_strides, 0)
    if not in_pos.size:
        return g.new_zeros(x_shape)
    low = min(int(in_pos.min()), int(out_pos.min()) if out_pos.size else 0)
    high = max(int(in_pos.max()), int(out_pos.max()) if out_pos.size else 0)
    out_pos, in_pos = out_pos - low, in_pos - low
    counts = np.bincount(in_pos.reshape(-1), minlength=high - low + 1)[in_pos]
    scale = None if (counts == 1).all() else (1.0 / counts).astype(g._data.dtype)
    return apply(STRIDED_REMAP, (g,), _remap(out_pos, in_pos, high - low + 1, scale))


def _as_strided_fwd(xp, x, *, size, stride, offset, x_strides):
    return _strided(x, size, stride, offset)


AS_STRIDED = defop("as_strided", _as_strided_fwd, {"x": _as_strided_grad}, view=True)
# as_strided_ records the same formula under PyTorch's name for the in-place form
AS_STRIDED_INPLACE = defop(
    "as_strided_inplace", _as_strided_fwd, {"x": _as_strided_grad}, node="AsStridedBackward1"
)


def _storage_size(t: Tensor) -> int:
    root = t._base._data if t._base is not None else t._data
    lo, hi = _span(root)
    return (hi - lo) // root.itemsize


def _element_strides(a: np.ndarray) -> tuple:
    return tuple(s // a.itemsize for s in a.strides)


def _strided_attrs(t: Tensor, size, stride, storage_offset, fn: str) -> dict:
    size = int_list(fn, (size,), position=2, varargs=False)
    stride = int_list(fn, (stride,), name="stride", position=3, varargs=False)
    if storage_offset is not None and not is_int(storage_offset):
        raise TypeError(
            f"{fn}(): argument 'storage_offset' must be int, not {type_name(storage_offset)}"
        )
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: "
            f"{list(stride)}"
        )
    own = t.storage_offset()
    offset = own if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if math.prod(size):
        needed = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
        capacity = _storage_size(t)
        if needed > capacity:
            item = t._data.itemsize
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                f"{offset}, and itemsize {item} requiring a storage size of {needed * item} "
                f"are out of bounds for storage of size {capacity * item}"
            )
    return {
        "size": size,
        "stride": stride,
        "offset": offset - own,
        "x_strides": _element_strides(t._data),
    }


@public
def as_strided(input, size, stride, storage_offset=None):
    """Matches `torch.as_strided`: a view of the input's storage with the given geometry."""
    return apply(
        AS_STRIDED, (input,), _strided_attrs(input, size, stride, storage_offset, "as_strided")
    )


@public(function=False)
def as_strided_(self, size, stride, storage_offset=None):
    """Matches `torch.Tensor.as_strided_`: `self` itself takes the new geometry
    (AsStridedBackward1 when it has history)."""
    attrs = _strided_attrs(self, size, stride, storage_offset, "as_strided_")
    return inplace_view(self, AS_STRIDED, AS_STRIDED_INPLACE, attrs, "as_strided_")


# ---- set_ and resize_ -----------------------------------------------------------------------


def _refuse(self, grads):
    raise RuntimeError("derivative for set_ is not implemented")


# PyTorch records set_ on a tensor with history as a node whose backward is refused
SetBackward = type("NotImplemented", (Node,), {"__slots__": (), "apply": _refuse})


@public(function=False)
def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """Matches `torch.Tensor.set_`: `self` takes `source`'s memory (a tensor's or a storage's),
    sizes and strides, or the given ones; with no source, it becomes empty. Its version counter
    stays its own."""
    if source is None:
        data = np.empty((0,), self._data.dtype)
    else:
        data = _set_source(self, source)
        if size is not None:
            holder = Tensor._wrap(data)
            if stride is None:
                stride = _contiguous_strides(int_list("set_", (size,), varargs=False))
            attrs = _strided_attrs(holder, size, stride, storage_offset, "set_")
            data = _strided(data, attrs["size"], attrs["stride"], attrs["offset"])
    grad_input = isinstance(source, Tensor) and source._requires_grad
    node = None
    if grad_state.enabled and (self._requires_grad or grad_input):
        check_inplace_allowed(self)
        node = object.__new__(SetBackward)
        inputs = (self, source) if isinstance(source, Tensor) else (self, self)
        mask = (1 if self._requires_grad else 0) | (2 if grad_input else 0)
        record(node, inputs, mask, {}, (), None)
    _detach_from_base(self)
    self._data = data
    self._version_counter.bump("set_")
    if node is not None:
        self._grad_fn, self._out_nr, self._requires_grad = node, 0, True
    elif self._grad_fn is None:
        # a leaf that took other memory gets a new AccumulateGrad, as in PyTorch: graphs built
        # before reach it only through the old one (`get_gradient_edge` taken before)
        self._accum = None
    return self


def _set_source(self, source) -> np.ndarray:
    if isinstance(source, TypedStorage):
        source = source._untyped_storage
    if isinstance(source, UntypedStorage):
        flat, item = source._array.reshape(-1), self._data.itemsize
        flat = flat[: flat.size - flat.size % item]  # whole elements, as PyTorch counts them
        return flat if flat.dtype == self._data.dtype else flat.view(self._data.dtype)
    if not isinstance(source, Tensor):
        raise TypeError(
            f"set_() received an invalid combination of arguments - got "
            f"({type_name(source)}), but expected one of:"
        )
    if source._data.dtype != self._data.dtype:
        from_, to = (t.dtype for t in (source, self))
        raise RuntimeError(
            f"Could not set tensor of type {c_type_name(from_)} to a tensor of type "
            f"{c_type_name(to)}"
        )
    return source._data


def _contiguous_strides(size: tuple) -> tuple:
    strides, step = [], 1
    for n in reversed(size):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _detach_from_base(self) -> None:
    # a view that takes other memory (or new sizes) stops being a view of its base
    if self._base is not None:
        counter = VersionCounter()
        counter.value = self._version_counter.value
        self._version_counter = counter
        self._base = None
        self._view_chain = None


@public(function=False)
def resize_(self, *sizes, memory_format=None):
    """Matches `torch.Tensor.resize_`: the new shape over the same memory from `self`'s first
    element when there is enough of it, else over new memory that starts with the old values
    (the rest is zeros here: PyTorch leaves it uninitialised). A view that is resized stops
    being one (in PyTorch it stays a view of its base)."""
    if self._requires_grad and not grad_state.inference:  # inference mode skips autograd's check
        raise RuntimeError("cannot resize variables that require grad")
    shape = int_list("resize_", sizes, position=2)
    if any(s < 0 for s in shape):
        raise RuntimeError("numel: integer multiplication overflow")
    data = self._data
    if shape == data.shape and memory_format is None:
        return self  # PyTorch's resize_ to the same sizes changes nothing, not even the version
    n = math.prod(shape)
    start = data.__array_interface__["data"][0]
    _, hi = _span(_owner(data))
    if data.flags.c_contiguous and start + n * data.itemsize <= hi:
        new = _strided(data, shape, _contiguous_strides(shape), 0)
    else:  # PyTorch grows the storage, keeping what it held
        new = np.zeros(shape, data.dtype)
        old = data.reshape(-1)[:n]
        new.reshape(-1)[: old.size] = old
    fmt = check_format("resize_", memory_format)
    if fmt is not None and fmt._order is not None:
        new = in_format(new, fmt)
    _detach_from_base(self)
    self._data = new
    self._version_counter.bump("resize_")
    return self


@public(function=False)
def resize_as_(self, the_template, *, memory_format=None):
    """Matches `torch.Tensor.resize_as_`."""
    return resize_(self, the_template._data.shape, memory_format=memory_format)


@public(function=False)
def is_set_to(self, tensor) -> bool:
    """Matches `torch.Tensor.is_set_to`: the same memory, offset, sizes and strides."""
    mine, theirs = self._data, tensor._data
    return (
        mine.__array_interface__["data"][0] == theirs.__array_interface__["data"][0]
        and mine.shape == theirs.shape
        and mine.strides == theirs.strides
        and mine.dtype == theirs.dtype
    )


_AMBIGUOUS = (
    "The tensor does not have unique dim order, or cannot map to exact one of the given "
    "memory formats."
)


@public(function=False)
def dim_order(self, *, ambiguity_check=False) -> tuple:
    """Matches `torch.Tensor.dim_order`: the dims from outermost to innermost in memory
    (PyTorch's elementwise output order). `ambiguity_check` (True, or a list of memory
    formats) refuses a tensor whose order is not unique (a size-1 dim, or neighbours with
    equal strides) unless it matches exactly one of the listed formats."""
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    if not isinstance(ambiguity_check, bool) and (
        not isinstance(ambiguity_check, list)
        or not all(isinstance(f, memory_format) for f in ambiguity_check)
    ):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    data = self._data
    shape, strides = data.shape, self.stride()
    several = any(a == b for a, b in zip(strides, strides[1:])) or 1 in shape
    matching = sum(is_contiguous_as(data, check_format("dim_order", f)) for f in formats)
    if ambiguity_check is not False and several and matching != 1:
        raise RuntimeError(_AMBIGUOUS)
    if data.ndim < 2:
        return tuple(range(data.ndim))
    contiguous = is_contiguous_as(data, None)
    channels_last = data.ndim == 4 and is_contiguous_as(data, check_format("dim_order", _NHWC))
    if contiguous and not channels_last:
        return tuple(range(data.ndim))
    if channels_last and not contiguous:
        return (0, 2, 3, 1)
    return _physical_order(shape, strides, ambiguity_check is not False)


def _physical_order(shape, strides, unique: bool) -> tuple:
    # an insertion sort from the innermost dim that moves a dim outward past one with a
    # smaller stride (or an equal stride and a smaller size); a stride of 0 decides nothing
    def outer(a, b) -> int:
        if strides[a] == 0 or strides[b] == 0:
            return 0
        if strides[a] != strides[b]:
            return 1 if strides[a] > strides[b] else -1
        return 1 if shape[a] > shape[b] else 0

    order = list(reversed(range(len(shape))))
    for i in range(1, len(order)):
        moving = i
        for j in reversed(range(i)):
            decision = outer(order[j], order[moving])
            if decision > 0:
                order[j], order[moving] = order[moving], order[j]
                moving = j
            elif decision < 0:
                break
    if unique and any(outer(a, b) != -1 for a, b in zip(order, order[1:])):
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(reversed(order))


@public(function=False)
def const_data_ptr(self) -> int:
    """Matches `torch.Tensor.const_data_ptr`: `data_ptr()` (for reading only)."""
    return self.data_ptr()


@public
def is_distributed(input) -> bool:
    """Matches `torch.is_distributed`: always False (no distributed tensors)."""
    return False


# ---- the deprecated non-inplace resize: a reshape that keeps the element count ------------

# PyTorch's is a custom Function (torch.autograd._functions.Resize): a view of a contiguous
# input, a contiguous copy of any other, and a node named ResizeBackward either way
RESIZE_VIEW = defop(
    "resize_view",
    lambda xp, x, *, shape: x.reshape(shape),
    {"x": lambda g, x_shape: g.reshape(x_shape)},
    node="ResizeBackward",
    view=True,
)
RESIZE_COPY = defop(
    "resize_copy",
    lambda xp, x, *, shape: xp.ascontiguousarray(x).reshape(shape),
    {"x": lambda g, x_shape: g.reshape(x_shape)},
    node="ResizeBackward",
)


def _resize(self, sizes, name: str):
    warnings.warn(f"non-inplace {name} is deprecated", UserWarning, stacklevel=3)
    wanted = math.prod(sizes)
    have = self._data.size
    if wanted != have:
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, sizes))} ({wanted} elements in total), "
            f"but the given tensor has a size of {'x'.join(map(str, self._data.shape))} "
            f"({have} elements). autograd's resize can only change the shape of a given "
            "tensor, while preserving the number of elements. "
        )
    op = RESIZE_VIEW if self._data.flags.c_contiguous else RESIZE_COPY
    return apply(op, (self,), {"shape": tuple(int(s) for s in sizes)})


@public(function=False)
def resize(self, *sizes):
    """Matches the deprecated `torch.Tensor.resize` (warns): the same elements in new sizes."""
    return _resize(self, sizes, "resize")


@public(function=False)
def resize_as(self, tensor):
    """Matches the deprecated `torch.Tensor.resize_as` (warns)."""
    return _resize(self, tensor._data.shape, "resize_as")


# ---- the unsafe splits: pieces that share memory but are not views -------------------------

UNSAFE_SPLIT = defop(
    "unsafe_split",
    _split_fwd,
    {"x": lambda g, x_shape, dim, sizes: _pieces_grad(g, x_shape, dim, sizes)},
    outputs=None,
)
UNSAFE_SPLIT_WITH_SIZES = defop(
    "unsafe_split_with_sizes",
    _split_fwd,
    {"x": lambda g, x_shape, dim, sizes: _pieces_grad(g, x_shape, dim, sizes)},
    outputs=None,
)


@public
def unsafe_split(tensor, split_size, dim=0):
    """Matches `torch.unsafe_split`: split's pieces, not tracked as views (UnsafeSplitBackward0):
    writing into one changes `tensor` without PyTorch's view checks."""
    if not is_int(split_size):
        raise TypeError(
            f"unsafe_split(): argument 'split_size' (position 2) must be int, not "
            f"{type_name(split_size)}"
        )
    return _split_again(UNSAFE_SPLIT, tensor, split(tensor.detach(), split_size, dim), dim)


@public
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """Matches `torch.unsafe_split_with_sizes` (UnsafeSplitWithSizesBackward0)."""
    pieces = split_with_sizes(input.detach(), split_sizes, dim)
    return _split_again(UNSAFE_SPLIT_WITH_SIZES, input, pieces, dim)


@public
def unsafe_chunk(input, chunks, dim=0):
    """Matches `torch.unsafe_chunk`: chunk's pieces, recorded as unsafe_split's."""
    return _split_again(UNSAFE_SPLIT, input, chunk(input.detach(), chunks, dim), dim)


def _split_again(op, tensor, pieces: tuple, dim) -> tuple:
    d = _piece_dim(tensor, dim, "split")
    sizes = tuple(p._data.shape[d] for p in pieces)
    return apply(op, (tensor,), {"dim": d, "sizes": sizes})


# ---- empty_strided --------------------------------------------------------------------------


@public
def empty_strided(
    size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False
):
    """Matches `torch.empty_strided`: a tensor with the given sizes and strides over memory of
    its own (zeros here: PyTorch leaves it uninitialised)."""
    size = int_list("empty_strided", (size,), position=1, varargs=False)
    stride = int_list("empty_strided", (stride,), name="stride", position=2, varargs=False)
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
            f"({len(stride)})"
        )
    if any(n < 0 for n in size):
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(size)}: {list(size)}"
        )
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and "
            f"strides={list(stride)}"
        )
    np_dtype = np.dtype(_np_dtype(dtype))
    needed = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if math.prod(size) else 0
    data = _strided(np.zeros(max(needed, 1), np_dtype), size, stride, 0)
    return _leaf(data, requires_grad, device)
