"""Masks and flat indices: masked_fill, masked_select, masked_scatter, take, nonzero."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ..._tensor_errors import CPP_TYPE_NAMES
from ..creation.factories import zeros
from ..table.arguments import fill_value
from ..table.array_backward import ArrayBackward
from ..table.errors import broadcast_error, expect_tensor
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .index_dim import INDEX_ADD
from .joining import cat


# the result keeps x's dtype: the value, made a number of x's kind by fill_value, is weak
# (except to ml_dtypes' bfloat16, which a Python float widens to float32: cast back)
def _where_keeping(xp, mask, value, x):
    out = xp.where(mask, value, x)
    return out if out.dtype == x.dtype else out.astype(x.dtype)


MASKED_FILL = defop(
    "masked_fill",
    lambda xp, x, mask, *, value: _where_keeping(xp, mask, value, x),
    {"x": lambda g, mask: g.masked_fill(mask, 0.0)},
    array_backward=ArrayBackward(
        lambda xp, needs, g, mask: (_where_keeping(xp, mask, 0.0, g), None), mixed_dtypes=True
    ),
)
MASKED_FILL_TENSOR = defop(
    "masked_fill_tensor",
    lambda xp, x, mask, value: xp.where(mask, value.astype(x.dtype, copy=False), x),
    {
        "x": lambda g, mask: g.masked_fill(mask, 0.0),
        "value": lambda g, mask: g.masked_fill(mask.logical_not(), 0.0).sum(),
    },
    node="MaskedFillBackward1",
)


@public
def masked_fill(input, mask, value):
    """Matches `torch.masked_fill`."""
    if isinstance(mask, Tensor) and mask._data.shape != input._data.shape:
        # PyTorch names the mask first out of place, and sizes things before other checks
        err = broadcast_error((mask._data.shape, input._data.shape))
        if err is not None:
            raise err
    _check_mask(mask, value)
    if isinstance(value, Tensor):
        return apply(MASKED_FILL_TENSOR, (input, mask, value))
    return apply(MASKED_FILL, (input, mask), {"value": fill_value(value, input.dtype)})


@public(function=False)
def masked_fill_(self, mask, value):
    """Matches `torch.Tensor.masked_fill_`."""
    _check_mask(mask, value)
    if isinstance(value, Tensor):
        return apply_inplace(MASKED_FILL_TENSOR, (self, mask, value), name="masked_fill_")
    value = fill_value(value, self.dtype)
    return apply_inplace(MASKED_FILL, (self, mask), {"value": value}, name="masked_fill_")


def _check_mask(mask, value=None):
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(
            f"masked_fill_ only supports a 0-dimensional value tensor, but got "
            f"tensor with {value._data.ndim} dimension(s)."
        )
    if not isinstance(mask, Tensor) or mask._data.dtype != np.bool_:
        name = mask.dtype.name if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{CPP_TYPE_NAMES.get(name, name)}"
        )


def _masked_scatter_fwd(xp, x, source, *, mask):
    shape = np.broadcast_shapes(x.shape, mask.shape)
    out = np.array(xp.broadcast_to(x, shape))
    picked = xp.broadcast_to(mask, shape)
    out[picked] = source.reshape(-1)[: int(picked.sum())]
    return out


def _masked_select_fwd(xp, x, *, mask):
    x, mask = xp.broadcast_arrays(x, mask)
    return x[mask]


def _masked_source_grad(g, source_shape, mask):
    # the first count(mask) elements of the source were used, in order; the rest get zeros

    picked = apply(MASKED_SELECT, (g,), {"mask": mask})
    missing = int(np.prod(source_shape)) - picked._data.shape[0]
    if missing:
        picked = cat([picked, picked.new_zeros(missing)])
    return picked.reshape(source_shape)


def _into_zeros_at(g, x_shape, mask):

    shape = np.broadcast_shapes(tuple(x_shape), mask.shape)
    return apply(MASKED_SCATTER, (zeros(shape, dtype=g.dtype), g), {"mask": mask})


MASKED_SELECT = defop(
    "masked_select",
    _masked_select_fwd,
    {"x": lambda g, x_shape, mask: _into_zeros_at(g, x_shape, mask)},
)
MASKED_SCATTER = defop(
    "masked_scatter",
    _masked_scatter_fwd,
    {
        "x": lambda g, mask: g.masked_fill(Tensor._wrap(mask), 0),
        "source": lambda g, source_shape, mask: _masked_source_grad(g, source_shape, mask),
    },
)
TAKE = defop(
    "take",
    lambda xp, x, *, index: x.reshape(-1)[index],
    {"x": lambda g, x_shape, index: _take_grad(g, x_shape, index)},
)
NONZERO = defop("nonzero", lambda xp, x: xp.argwhere(x).astype(xp.int64))


def _take_grad(g, x_shape, index):

    n = int(np.prod(x_shape))
    flat = np.where(index < 0, index + n, index).reshape(-1)
    base = zeros(n, dtype=g.dtype)
    out = apply(INDEX_ADD, (base, g.reshape(-1)), {"dim": 0, "index": flat, "alpha": 1})
    return out.reshape(x_shape)


def _bool_mask(mask, name):
    if not isinstance(mask, Tensor) or mask._data.dtype != np.bool_:
        raise RuntimeError(name)
    return mask._data


@public
def masked_select(input, mask):
    """Matches `torch.masked_select`: a 1-D copy of the elements where `mask` is True."""
    m = _bool_mask(mask, "masked_select: expected BoolTensor for mask")
    try:
        np.broadcast_shapes(input._data.shape, m.shape)
    except ValueError:
        raise broadcast_error([m.shape, input._data.shape]) from None
    return apply(MASKED_SELECT, (input,), {"mask": m})


def _masked_scatter_args(input, mask, source):
    if not isinstance(mask, Tensor) or mask._data.dtype != np.bool_:
        raise RuntimeError(
            "masked_scatter_ only supports boolean masks, but got mask with "
            f"dtype {mask.dtype._legacy}"
        )
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"masked_scatter: expected self and source to have same dtypes but "
            f"got{input.dtype._legacy} and {source.dtype._legacy}"
        )
    shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
    if int(np.broadcast_to(mask._data, shape).sum()) > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return (input, source), {"mask": mask._data}


@public
def masked_scatter(input, mask, source):
    """Matches `torch.masked_scatter`: `source`'s elements, in order, where `mask` is True."""
    return apply(MASKED_SCATTER, *_masked_scatter_args(input, mask, source))


@public(function=False)
def masked_scatter_(self, mask, source):
    """Matches `torch.Tensor.masked_scatter_`."""
    return apply_inplace(
        MASKED_SCATTER, *_masked_scatter_args(self, mask, source), name="masked_scatter_"
    )


@public
def take(input, index):
    """Matches `torch.take`: `input` read as 1-D at `index`; the result has index's shape."""
    a = index._data if isinstance(index, Tensor) else np.asarray(index)
    if a.dtype != np.int64:
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got {Tensor._wrap(a).dtype._legacy}"
        )
    n = input._data.size
    bad = (a < -n) | (a >= n)
    if bad.any():
        raise IndexError(
            f"out of range: tried to access index {a[bad][0]} on a tensor of {n} elements."
        )
    return apply(TAKE, (input,), {"index": a})


@public
def nonzero(input, *, as_tuple=False):
    """Matches `torch.nonzero`: an (n, ndim) index tensor, or one index tensor per dim."""
    if input._data.ndim == 0:
        found = apply(NONZERO, (input.reshape(1),))
        return (found[:, 0],) if as_tuple else found[:, :0]
    found = apply(NONZERO, (input,))
    if as_tuple:
        return tuple(found[:, d] for d in range(input._data.ndim))
    return found


argwhere = public(lambda input: nonzero(input), name="argwhere")


def _int_argument(value, name: str) -> int:
    if type(value) is bool or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"nonzero_static(): argument '{name}' must be int, not {type(value).__name__}"
        )
    return int(value)


@public
def nonzero_static(input, *, size, fill_value=-1):
    """Matches `torch.nonzero_static`: `nonzero` cut or padded (with `fill_value`) to
    exactly `size` rows, so the result's shape does not depend on the data."""
    expect_tensor("nonzero_static", "input", 1, input)
    size = _int_argument(size, "size")
    fill = _int_argument(fill_value, "fill_value")
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    data = input._data
    found = np.argwhere(data.reshape(1) if data.ndim == 0 else data)[:size]
    out = np.full((size, data.ndim), fill, dtype=np.int64)
    out[: len(found)] = found[:, : data.ndim]
    return Tensor._wrap(out)
