"""Whole slices along a dim by index: index_select, index_add, index_copy, index_fill.

Index tensors are attributes of a row (arrays kept by the node), never differentiable inputs.
"""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ..creation.factories import zeros
from ..table import record as recording
from ..table.arguments import as_int, fill_value
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .reshaping import wrap_dim
from .scatter import check_bounds


def _dim_key(dim, index):
    return (slice(None),) * dim + (index,)


def _index_select_fwd(xp, x, *, dim, index):
    return x.copy() if x.ndim == 0 else xp.take(x, index, axis=dim)


def _index_add_fwd(xp, x, source, *, dim, index, alpha):
    out = x.copy()
    values = source * alpha if alpha != 1 else source
    if x.ndim == 0:
        return out + values
    xp.add.at(out, _dim_key(dim, index), values)
    return out


def _index_write_fwd(xp, x, value, *, dim, index):
    out = x.copy()
    if x.ndim == 0:
        out[...] = value
    else:
        out[_dim_key(dim, index)] = value
    return out


def _index_add_into_zeros(g, x_shape, dim, index):

    base = zeros(x_shape, dtype=g.dtype)
    return apply(INDEX_ADD, (base, g), {"dim": dim, "index": index, "alpha": 1})


def _index_select(g, dim, index):
    return apply(INDEX_SELECT, (g,), {"dim": dim, "index": index})


def _index_filled_away(g, dim, index):
    return apply(INDEX_FILL, (g,), {"dim": dim, "index": index, "value": 0})


INDEX_SELECT = defop(
    "index_select",
    _index_select_fwd,
    {"x": lambda g, x_shape, dim, index: _index_add_into_zeros(g, x_shape, dim, index)},
)
INDEX_ADD = defop(
    "index_add",
    _index_add_fwd,
    {"x": lambda g: g, "source": lambda g, dim, index, alpha: _index_select(g, dim, index) * alpha},
)
INDEX_COPY = defop(
    "index_copy",
    _index_write_fwd,
    {
        "x": lambda g, dim, index: _index_filled_away(g, dim, index),
        "value": lambda g, dim, index: _index_select(g, dim, index),
    },
)
INDEX_FILL = defop(
    "index_fill",
    lambda xp, x, *, dim, index, value: _index_write_fwd(xp, x, value, dim=dim, index=index),
    {"x": lambda g, dim, index: _index_filled_away(g, dim, index)},
)
INDEX_FILL_TENSOR = defop(
    "index_fill_tensor",
    _index_write_fwd,
    {
        "x": lambda g, dim, index: _index_filled_away(g, dim, index),
        # each filled position once, even when `index` repeats one
        "value": lambda g, dim, index: (g - _index_filled_away(g, dim, index)).sum(),
    },
    node="IndexFillBackward1",
)


def _vector_index(input, dim, index, name):
    d = wrap_dim(dim, input._data.ndim)
    a = index._data if isinstance(index, Tensor) else np.asarray(index)
    return d, a.reshape(-1) if a.ndim == 0 else a


def _empty_select(input, d, a) -> None:
    # an empty input takes PyTorch's other kernel, with its own words
    size = input._data.shape[d] if input._data.ndim else 1
    if size == 0 and a.size:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    bad = (a < 0) | (a >= size)
    if bad.any():
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={a[bad][0]} axis_dim={size}")


@public
def index_select(input, dim, index):
    """Matches `torch.index_select`."""
    d, a = _vector_index(input, dim, index, "index_select")
    if a.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if a.dtype.kind not in "iu":
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if input._data.size == 0:
        _empty_select(input, d, a)
    size = input._data.shape[d] if input._data.ndim else 1
    bad = (a < 0) | (a >= size)
    if bad.any():
        if d > 0:  # PyTorch's inner-dim kernel words it differently
            raise RuntimeError(
                f"INDICES element is out of DATA bounds, id={a[bad][0]} axis_dim={size}"
            )
        raise IndexError("index out of range in self")
    return apply(INDEX_SELECT, (input,), {"dim": d, "index": a.astype(np.int64, copy=False)})


def _index_add_args(input, dim, index, source, alpha):
    d, a = _vector_index(input, dim, index, "index_add_")
    if a.ndim > 1:
        raise IndexError(
            f"index_add_(): Index is supposed to be a vector, but got dim: {a.ndim} "
            f"with type: {Tensor._wrap(a).dtype._legacy} and size: {list(a.shape)}"
        )
    if a.dtype.kind not in "iu":
        raise RuntimeError(
            f"index_add_(): Expected dtype int32/int64 for index but got: "
            f"{Tensor._wrap(a).dtype._legacy}"
        )
    _check_source(input, d, a, source, "index_add_")
    if input._data.dtype != source._data.dtype:
        raise RuntimeError(
            f"index_add_(): self ({input.dtype._legacy}) and source "
            f"({source.dtype._legacy}) must have the same scalar type"
        )
    size = input._data.shape[d] if input._data.ndim else 1
    if input._data.ndim <= 1 and ((a < 0) | (a >= size)).any():
        raise IndexError("index out of range in self")
    check_bounds(a, d, size)
    return (input, source), {"dim": d, "index": a, "alpha": alpha}


def _check_source(input, d, a, source, name):
    src_shape, shape = source._data.shape, input._data.shape
    count = src_shape[d] if source._data.ndim else 1
    if count != a.size:
        if name == "index_copy_":
            raise IndexError(
                f"index_copy_(): Number of indices ({a.size}) should be equal to "
                f"source.size(dim) ({count})"
            )
        raise RuntimeError(
            f"{name}(): Number of indices ({a.size}) should be equal to "
            f"source.size(dim): ({count}), for dim: {d}"
        )
    if source._data.ndim and (
        len(src_shape) != len(shape)
        or any(s != t for k, (s, t) in enumerate(zip(src_shape, shape)) if k != d)
    ):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(shape)} source.shape = {list(src_shape)}"
        )


@public
def index_add(input, dim, index, source, *, alpha=1):
    """Matches `torch.index_add`: repeated indices add up."""
    return apply(INDEX_ADD, *_index_add_args(input, dim, index, source, alpha))


@public(function=False)
def index_add_(self, dim, index, source, *, alpha=1):
    """Matches `torch.Tensor.index_add_`."""
    return apply_inplace(
        INDEX_ADD, *_index_add_args(self, dim, index, source, alpha), name="index_add_"
    )


def _index_copy_args(input, dim, index, source):
    d, a = _vector_index(input, dim, index, "index_copy_")
    if a.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {a.ndim})")
    if a.dtype != np.int64:
        raise RuntimeError(
            "index_copy_(): Expected a long tensor for index, but got "
            f"{Tensor._wrap(a).dtype._legacy}"
        )
    _check_source(input, d, a, source, "index_copy_")
    if input._data.dtype != source._data.dtype:
        raise RuntimeError(
            f"index_copy_(): self and source expected to have the same dtype, "
            f"but got (self) {input.dtype._legacy} and (source) "
            f"{source.dtype._legacy}"
        )
    size = input._data.shape[d] if input._data.ndim else 1
    bad = (a < 0) | (a >= size)
    if bad.any():
        raise IndexError(
            f"index_copy_(): index {a[bad][0]} is out of bounds for dimension {d} with size {size}"
        )
    return (input, source), {"dim": d, "index": a}


@public
def index_copy(input, dim, index, source):
    """Matches `torch.index_copy`."""
    if recording.autocast is not None:  # promoted before the dtype check: Note [Autocast hook]
        input, source = recording.autocast("index_copy", (input, source))
    return apply(INDEX_COPY, *_index_copy_args(input, dim, index, source))


@public(function=False)
def index_copy_(self, dim, index, source):
    """Matches `torch.Tensor.index_copy_`."""
    return apply_inplace(
        INDEX_COPY, *_index_copy_args(self, dim, index, source), name="index_copy_"
    )


def _index_fill_args(input, dim, index, value):
    dim = as_int(dim)  # its type, the index's dtype, the dim's range, the index's shape
    if not isinstance(index, Tensor) or index._data.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    d, a = _vector_index(input, dim, index, "index_fill_")
    if index._data.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    size = input._data.shape[d] if input._data.ndim else 1
    bad = (a < -size) | (a >= size)
    if bad.any():
        raise IndexError(f"index {a[bad][0]} is out of bounds for dimension {d} with size {size}")
    attrs = {"dim": d, "index": a}
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                f"index_fill_ only supports a 0-dimensional value tensor, but got "
                f"tensor with {value._data.ndim} dimension(s)."
            )
        return INDEX_FILL_TENSOR, (input, value), attrs
    return INDEX_FILL, (input,), {**attrs, "value": fill_value(value, input.dtype)}


@public
def index_fill(input, dim, index, value):
    """Matches `torch.index_fill`: a number (IndexFillBackward0) or a 0-d tensor (…Backward1)."""
    op, args, attrs = _index_fill_args(input, dim, index, value)
    return apply(op, args, attrs)


@public(function=False)
def index_fill_(self, dim, index, value):
    """Matches `torch.Tensor.index_fill_`."""
    op, args, attrs = _index_fill_args(self, dim, index, value)
    return apply_inplace(op, args, attrs, name="index_fill_")
