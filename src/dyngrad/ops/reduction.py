"""Reductions: sum, mean, max, min (whole tensor and along dims)."""

from __future__ import annotations

from .._tensor import Tensor
from ..return_types import max as max_result
from ..return_types import min as min_result
from .registry import apply, defop
from .shape import normalize_dims, wrap_dim
from .surface import public


def _sum_fwd(xp, x, *, dim=None, keepdim=False, dtype=None):
    if x.dtype.kind in "biu" and dtype is None:
        dtype = xp.int64  # PyTorch sums integers and bools in int64
    return xp.sum(x, axis=dim, keepdims=keepdim, dtype=dtype)


def expand_reduced(g, x_shape, dim, keepdim):
    """Undo a reduction's shape change: re-insert reduced dims, broadcast to the input."""
    if not keepdim and dim is not None:
        for d in sorted(dim):
            g = g.unsqueeze(d)
    return g.expand(x_shape)


def _count(x_shape, dim) -> int:
    n = 1
    for d in (range(len(x_shape)) if dim is None else dim):
        n *= x_shape[d]
    return n


SUM = defop("sum", lambda xp, x, *, dtype=None: _sum_fwd(xp, x, dtype=dtype),
            {"x": lambda g, x_shape: g.expand(x_shape)})
SUM_DIM = defop("sum_dim", _sum_fwd,
                {"x": lambda g, x_shape, dim, keepdim: expand_reduced(g, x_shape, dim, keepdim)},
                node="SumBackward1")
MEAN = defop("mean", lambda xp, x: xp.mean(x, dtype=x.dtype),
             {"x": lambda g, x_shape: g.expand(x_shape) / _count(x_shape, None)})
MEAN_DIM = defop("mean_dim",
                 lambda xp, x, *, dim, keepdim: xp.mean(x, axis=dim, keepdims=keepdim,
                                                        dtype=x.dtype),
                 {"x": lambda g, x_shape, dim, keepdim:
                  expand_reduced(g, x_shape, dim, keepdim) / _count(x_shape, dim)},
                 node="MeanBackward1")


def _evenly_distribute(g, x, out):
    # all-reduce max/min: ties share the gradient equally, as PyTorch does
    mask = x == out
    return g * mask / mask.sum()


def _select_along(g, x_shape, dim, keepdim, indices):
    # max/min along a dim: the gradient goes to the one index that was selected
    from .indexing import scatter_into_zeros

    if not keepdim:
        g = g.unsqueeze(dim)
        indices = indices.unsqueeze(dim)
    return scatter_into_zeros(g, x_shape, dim, indices)


MAX = defop("max", lambda xp, x: xp.max(x), {"x": _evenly_distribute}, node="MaxBackward1")
MIN = defop("min", lambda xp, x: xp.min(x), {"x": _evenly_distribute}, node="MinBackward1")


def _arg_reduce(fn_index):
    def fwd(xp, x, *, dim, keepdim):
        indices = fn_index(x, axis=dim, keepdims=True)
        values = xp.take_along_axis(x, indices, axis=dim)
        if not keepdim:
            values, indices = values.squeeze(dim), indices.squeeze(dim)
        return values, indices.astype(xp.int64)

    return fwd


MAX_DIM = defop("max_dim", _arg_reduce(lambda x, **kw: x.argmax(**kw)),
                {"x": lambda g, x_shape, dim, keepdim, out:
                 _select_along(g[0], x_shape, dim, keepdim, out[1])},
                node="MaxBackward0", outputs=2, differentiable=(0,))
MIN_DIM = defop("min_dim", _arg_reduce(lambda x, **kw: x.argmin(**kw)),
                {"x": lambda g, x_shape, dim, keepdim, out:
                 _select_along(g[0], x_shape, dim, keepdim, out[1])},
                node="MinBackward0", outputs=2, differentiable=(0,))


@public
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Matches `torch.sum`."""
    attrs_dtype = dtype.np if dtype is not None else None
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0 and not keepdim):
        if attrs_dtype is None:
            return apply(SUM, (input,))
        return apply(SUM, (input,), {"dtype": attrs_dtype})
    dims = normalize_dims(dim, input._data.ndim)
    return apply(SUM_DIM, (input,), {"dim": dims, "keepdim": keepdim, "dtype": attrs_dtype})


@public
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Matches `torch.mean`: floating tensors only, as in PyTorch."""
    if dtype is not None:
        input = input.to(dtype)
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {input.dtype._legacy}")
    if dim is None:
        return apply(MEAN, (input,))
    dims = normalize_dims(dim, input._data.ndim)
    return apply(MEAN_DIM, (input,), {"dim": dims, "keepdim": keepdim})


def _max_min(input, dim, keepdim, other, full_op, dim_op, result, pairwise, name):
    if isinstance(dim, Tensor):
        return pairwise(input, dim)
    if other is not None:
        return pairwise(input, other)
    if dim is None:
        if input._data.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument.")
        return apply(full_op, (input,))
    d = wrap_dim(dim, input._data.ndim)
    if input._data.ndim == 0:  # a 0-d tensor reduces as a 1-element one
        return result(*apply(dim_op, (input.reshape(1),), {"dim": 0, "keepdim": False}))
    if input._data.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return result(*apply(dim_op, (input,), {"dim": d, "keepdim": keepdim}))


@public
def max(input, dim=None, keepdim=False, *, other=None):
    """Matches `torch.max`: the maximum, `(values, indices)` along `dim`, or elementwise."""
    from .elementwise import maximum

    return _max_min(input, dim, keepdim, other, MAX, MAX_DIM, max_result, maximum, "max")


@public
def min(input, dim=None, keepdim=False, *, other=None):
    """Matches `torch.min`."""
    from .elementwise import minimum

    return _max_min(input, dim, keepdim, other, MIN, MIN_DIM, min_result, minimum, "min")
