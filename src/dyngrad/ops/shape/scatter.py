"""Reading and writing elements by index along a dim: gather, scatter, scatter_add.

Index tensors are attributes of a row (arrays kept by the node), never differentiable inputs.
"""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ..table.arguments import as_int, fill_value
from ..table.errors import broadcast_error
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .indexing import EMBED
from .reshaping import wrap_dim


def _scatter_key(index, dim):
    # the positions index[i, j, ...] names: i, j, ... everywhere except `dim`
    key = list(np.ix_(*[np.arange(s) for s in index.shape]))
    key[dim] = index
    return tuple(key)


def _scatter_zeros_fwd(xp, grad, *, shape, dim, index):
    if not shape:
        return grad.reshape(()).copy()
    out = xp.zeros(shape, dtype=grad.dtype)
    xp.add.at(out, _scatter_key(index, dim), grad)
    return out


def _gather_fwd(xp, x, *, dim, index):
    if x.ndim == 0:
        return x.copy()
    part = tuple(slice(0, s) if d != dim else slice(None) for d, s in enumerate(index.shape))
    return xp.take_along_axis(x[part], index, axis=dim)


def _scatter_fwd(xp, x, src, *, dim, index):
    out = x.copy()
    if x.ndim == 0:
        out[...] = src if np.ndim(src) == 0 else src.reshape(-1)[0]
        return out
    out[_scatter_key(index, dim)] = src if np.ndim(src) == 0 else src[_region(index)]
    return out


def _scatter_add_fwd(xp, x, src, *, dim, index):
    out = x.copy()
    if x.ndim == 0:
        return out + src.reshape(-1)[0]
    xp.add.at(out, _scatter_key(index, dim), src[_region(index)])
    return out


def _region(index):
    return tuple(slice(0, s) for s in index.shape)


def _pad_to(t, shape):
    """`t` in the leading corner of zeros of `shape` (the src of scatter may be larger)."""

    if t._data.shape == tuple(shape):
        return t
    return apply(EMBED, (t,), {"shape": tuple(shape), "key": _region(t._data)})


def _scattered_away(g, dim, index):
    return apply(SCATTER_VALUE, (g,), {"dim": dim, "index": index, "value": 0})


GATHER = defop(
    "gather",
    _gather_fwd,
    {
        "x": lambda g, x_shape, dim, index: apply(
            SCATTER_ZEROS, (g,), {"shape": x_shape, "dim": dim, "index": index}
        )
    },
)
# the backward of gather (and of max/min along a dim): gradients added where they were read
SCATTER_ZEROS = defop(
    "scatter_zeros",
    _scatter_zeros_fwd,
    {"grad": lambda g, dim, index: apply(GATHER, (g,), {"dim": dim, "index": index})},
    node="ScatterAddBackward0",
)
SCATTER = defop(
    "scatter",
    _scatter_fwd,
    {
        "x": lambda g, dim, index: _scattered_away(g, dim, index),
        "src": lambda g, src_shape, dim, index: _pad_to(
            apply(GATHER, (g,), {"dim": dim, "index": index}), src_shape
        ),
    },
)
SCATTER_VALUE = defop(
    "scatter_value",
    lambda xp, x, *, dim, index, value: _scatter_fwd(xp, x, value, dim=dim, index=index),
    {"x": lambda g, dim, index: _scattered_away(g, dim, index)},
    node="ScatterBackward1",
)
SCATTER_ADD = defop(
    "scatter_add",
    _scatter_add_fwd,
    {
        "x": lambda g: g,
        "src": lambda g, src_shape, dim, index: _pad_to(
            apply(GATHER, (g,), {"dim": dim, "index": index}), src_shape
        ),
    },
)


def scatter_into_zeros(g, x_shape, dim, indices):
    """Zeros of `x_shape` with `g` added at `indices` along `dim` (max/min/gather backward)."""
    return apply(SCATTER_ZEROS, (g,), {"shape": x_shape, "dim": dim, "index": indices._data})


# ---- checks: PyTorch's messages for bad indices ---------------------------------------------


def _index_of(index, message: str, error=RuntimeError):
    a = index._data if isinstance(index, Tensor) else np.asarray(index)
    if a.dtype.kind not in "iu":
        raise error(message)
    return a.astype(np.int64, copy=False)


def check_bounds(a, dim, size) -> None:
    """PyTorch's message for the first index outside [0, size)."""
    bad = (a < 0) | (a >= size)
    if bad.any():
        raise RuntimeError(
            f"index {a[bad].flat[0]} is out of bounds for dimension {dim} with size {size}"
        )


def _gather_scatter_index(name, input, dim, index, src=None):
    shape = input._data.shape
    d = wrap_dim(dim, len(shape))  # the dim's errors come before the index's
    a = _index_of(index, f"{name}(): Expected dtype int32/int64 for index")
    if a.size == 0:  # an empty index gathers or writes nothing: PyTorch checks no more
        return d, a if a.ndim == len(shape) else a.reshape((0,) * len(shape))
    if a.ndim != len(shape):
        other = "input" if name == "gather" else "self"
        raise RuntimeError(
            f"Index tensor must have the same number of dimensions as {other} tensor"
        )
    src_shape = src._data.shape if isinstance(src, Tensor) else None
    for k, s in enumerate(a.shape):
        too_big = k != d and s > shape[k]
        if too_big or (src_shape is not None and s > src_shape[k]):
            if name == "gather":
                raise RuntimeError(
                    f"Size does not match at dimension {k} expected index {list(a.shape)} to be "
                    f"no larger than self {list(shape)} apart from dimension {d}"
                )
            tail = f" and to be no larger size than src {list(src_shape)}" if src_shape else ""
            raise RuntimeError(
                f"Expected index {list(a.shape)} to be no larger than self "
                f"{list(shape)} apart from dimension {d}{tail}"
            )
    if a.size:
        check_bounds(a, d, shape[d] if shape else 1)
    return d, a


def _same_dtype(input, src, name):
    if isinstance(src, Tensor) and src._data.dtype != input._data.dtype:
        raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")


# ---- public functions -----------------------------------------------------------------------


@public
def gather(input, dim, index, *, sparse_grad=False):
    """Matches `torch.gather`: out[i][j] = input[i][index[i][j]] (for dim=1)."""
    d, a = _gather_scatter_index("gather", input, dim, index)
    if a.size == 0 and index._data.ndim != input._data.ndim:
        return input.new_empty(index._data.shape)
    return apply(GATHER, (input,), {"dim": d, "index": a})


@public
def take_along_dim(input, indices, dim=None):
    """Matches `torch.take_along_dim`."""
    if dim is not None:
        dim = as_int(dim)
        if input._data.ndim != indices._data.ndim:
            raise RuntimeError(
                f"torch.take_along_dim(): input and indices should have the same "
                f"number of dimensions, but got {input._data.ndim} dimensions "
                f"for input, and {indices._data.ndim} dimensions for indices"
            )
    if indices._data.dtype != np.int64:
        raise RuntimeError(
            f"torch.take_along_dim(): dtype of indices should be Long but got "
            f"{indices.dtype._legacy}"
        )
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    d = wrap_dim(dim, input._data.ndim)
    rest = [tuple(s for k, s in enumerate(t._data.shape) if k != d) for t in (input, indices)]
    try:
        shape = list(np.broadcast_shapes(*rest))
    except ValueError:
        raise broadcast_error(rest) from None
    in_shape = shape[:d] + [input._data.shape[d]] + shape[d:]
    ix_shape = shape[:d] + [indices._data.shape[d]] + shape[d:]
    return gather(input.expand(*in_shape), d, indices.expand(*ix_shape))


def _scatter_args(input, dim, index, src, value, reduce, name):
    if reduce is not None:
        raise NotImplementedError(
            f"dyngrad does not implement {name}(reduce=...); use "
            "scatter_add or scatter_reduce-free code instead"
        )
    if src is None:
        src = value
    if isinstance(src, Tensor):
        _check_src_dims(src, index)
        d, a = _gather_scatter_index("scatter", input, dim, index, src)
        _same_dtype(input, src, "scatter")
        return SCATTER, (input, src), {"dim": d, "index": a}
    d, a = _gather_scatter_index("scatter", input, dim, index)
    return SCATTER_VALUE, (input,), {"dim": d, "index": a, "value": fill_value(src, input.dtype)}


@public
def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """Matches `torch.scatter`: a tensor `src` (ScatterBackward0) or a number (ScatterBackward1)."""
    op, args, attrs = _scatter_args(input, dim, index, src, value, reduce, "scatter")
    return apply(op, args, attrs)


@public(function=False)
def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
    """Matches `torch.Tensor.scatter_`."""
    op, args, attrs = _scatter_args(self, dim, index, src, value, reduce, "scatter_")
    return apply_inplace(op, args, attrs, name="scatter_")


def _check_src_dims(src, index) -> None:
    index_ndim = index._data.ndim if isinstance(index, Tensor) else np.ndim(index)
    if src._data.ndim < index_ndim:
        wrap_dim(index_ndim - 1, src._data.ndim)


def _scatter_add_args(input, dim, index, src):
    _check_src_dims(src, index)
    d, a = _gather_scatter_index("scatter", input, dim, index, src)
    _same_dtype(input, src, "scatter")
    return (input, src), {"dim": d, "index": a}


@public
def scatter_add(input, dim, index, src):
    """Matches `torch.scatter_add`: repeated indices add up."""
    return apply(SCATTER_ADD, *_scatter_add_args(input, dim, index, src))


@public(function=False)
def scatter_add_(self, dim, index, src):
    """Matches `torch.Tensor.scatter_add_`."""
    return apply_inplace(
        SCATTER_ADD, *_scatter_add_args(self, dim, index, src), name="scatter_add_"
    )
