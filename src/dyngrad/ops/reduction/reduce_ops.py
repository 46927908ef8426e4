"""Reductions: sum, mean, prod, max/min, amax/amin, argmax/argmin, all/any, logsumexp."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...graph.grad_mode import state as grad_state
from ...return_types import max as max_result
from ...return_types import min as min_result
from ...runtime import dtypes
from ..arrays.gemm import LOW_PRECISION
from ..creation.factories import ones_like
from ..elementwise.arithmetic import maximum, minimum
from ..elementwise.complex_numbers import conjugate
from ..shape.joining import cat
from ..shape.reshaping import _expand_fwd, normalize_dims, wrap_dim
from ..shape.scatter import scatter_into_zeros
from ..table import promotion
from ..table.argument_errors import ALL_DIMS, REQUIRED, type_error
from ..table.arguments import as_int, as_ints
from ..table.array_backward import ArrayBackward
from ..table.fast import unary
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public


def reduce_dims(input: Tensor, dim) -> tuple:
    """`dim` as a sorted tuple of non-negative dims; None or () mean every dim."""
    ndim = input._data.ndim
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(ndim))
    return tuple(sorted(normalize_dims(dim, ndim)))


def expand_reduced(g, x_shape, dim, keepdim):
    """Undo a reduction's shape change: re-insert reduced dims, broadcast to the input."""
    if not keepdim and dim is not None:
        for d in sorted(dim):
            g = g.unsqueeze(d)
    return g.expand(x_shape)


def _count(x_shape, dim) -> int:
    n = 1
    for d in range(len(x_shape)) if dim is None else dim:
        n *= x_shape[d]
    return n


def _accumulate_dtype(x, dtype):
    # PyTorch sums and multiplies integers and bools in int64 unless told otherwise
    return np.int64 if dtype is None and x.dtype.kind in "biu" else dtype


def _sum_fwd(xp, x, *, dim=None, keepdim=False, dtype=None):
    if dtype is None and x.dtype in LOW_PRECISION:  # See Note [Low-precision products]
        return xp.sum(x, axis=dim, keepdims=keepdim, dtype=np.float32).astype(x.dtype)
    return xp.sum(x, axis=dim, keepdims=keepdim, dtype=_accumulate_dtype(x, dtype))


def _mean_fwd(xp, x, *, dim=None, keepdim=False):
    # float16/bfloat16: summed and divided in float32, rounded once, as PyTorch
    wide = np.float32 if x.dtype in LOW_PRECISION else x.dtype
    total = xp.sum(x, axis=dim, keepdims=keepdim, dtype=wide)
    with np.errstate(invalid="ignore", divide="ignore"):  # the mean of nothing is nan
        return (total / _count(x.shape, dim)).astype(x.dtype, copy=False)


def _reduced_grad(xp, g, x_shape, dim, keepdim, count: bool):
    # sum's and mean's backward on arrays: g (divided by the count) broadcast to the input
    if count:
        g = xp.asarray(g / _count(x_shape, dim))
    if not keepdim and dim is not None:
        g = xp.expand_dims(g, tuple(sorted(dim)))
    return (_expand_fwd(xp, g, size=x_shape),)


def _reduced_kernel(count: bool, along_dims: bool):
    if along_dims:
        return ArrayBackward(
            lambda xp, needs, g, x_shape, dim, keepdim: _reduced_grad(
                xp, g, x_shape, dim, keepdim, count
            )
        )
    return ArrayBackward(
        lambda xp, needs, g, x_shape: _reduced_grad(xp, g, x_shape, None, False, count)
    )


SUM = defop(
    "sum",
    lambda xp, x, *, dtype=None: (
        _sum_fwd(xp, x, dtype=dtype)
        if x.dtype in LOW_PRECISION
        else xp.add.reduce(x, None)
        if dtype is None and x.dtype.kind == "f"
        else x.sum(dtype=_accumulate_dtype(x, dtype))
    ),
    {"x": lambda g, x_shape: g.expand(x_shape)},
    array_backward=_reduced_kernel(False, False),
)
_sum_all = unary(SUM)  # x.sum(): the fast form (see Note [Hot path])
SUM_DIM = defop(
    "sum_dim",
    _sum_fwd,
    {"x": lambda g, x_shape, dim, keepdim: expand_reduced(g, x_shape, dim, keepdim)},
    node="SumBackward1",
    array_backward=_reduced_kernel(False, True),
)
MEAN = defop(
    "mean",
    lambda xp, x: _mean_fwd(xp, x),
    {"x": lambda g, x_shape: g.expand(x_shape) / _count(x_shape, None)},
    array_backward=_reduced_kernel(True, False),
)
MEAN_DIM = defop(
    "mean_dim",
    _mean_fwd,
    {
        "x": lambda g, x_shape, dim, keepdim: (
            expand_reduced(g, x_shape, dim, keepdim) / _count(x_shape, dim)
        )
    },
    node="MeanBackward1",
    array_backward=_reduced_kernel(True, True),
)


def _prod_grad(g, x, out, dim, keepdim):
    # d(prod x)/dx_j = prod_{i != j} x_i, which is out / x_j unless some x_i is 0
    if x.dim() == 0:
        return g
    if dim is None:
        g, out, flat = g.expand(x.shape), out.expand(x.shape), x.reshape(-1)
    else:
        g = expand_reduced(g, x.shape, (dim,), keepdim)
        out = expand_reduced(out, x.shape, (dim,), keepdim)
    if not (x._data == 0).any():
        return g * conjugate(out / x)  # See Note [Complex gradients]
    if dim is None:
        return g * conjugate(prod_of_others(flat, 0).reshape(x.shape))
    return g * conjugate(prod_of_others(x, dim))


def prod_of_others(x, dim):
    """prod_{i != j} x_i along `dim` for every j, from products to the left and to the right.

    No division, so it is exact where x has zeros (and differentiable again).
    """

    n = x.shape[dim]
    ones = ones_like(x.narrow(dim, 0, 1))
    left = cat([ones, x.narrow(dim, 0, n - 1).cumprod(dim)], dim)
    right = cat([x.narrow(dim, 1, n - 1).flip(dim).cumprod(dim).flip(dim), ones], dim)
    return left * right


PROD = defop(
    "prod",
    lambda xp, x, *, dtype=None: xp.prod(x, dtype=_accumulate_dtype(x, dtype)),
    {"x": lambda g, x, out: _prod_grad(g, x, out, None, False)},
)
PROD_DIM = defop(
    "prod_dim",
    lambda xp, x, *, dim, keepdim, dtype=None: xp.prod(
        x, axis=dim if x.ndim else None, keepdims=keepdim, dtype=_accumulate_dtype(x, dtype)
    ),
    {"x": lambda g, x, out, dim, keepdim: _prod_grad(g, x, out, dim, keepdim)},
    node="ProdBackward1",
)


def _evenly_distribute(g, x, out):
    # all-reduce max/min: ties share the gradient equally, as PyTorch does; a NaN result is
    # shared by the NaNs (PyTorch's evenly_distribute_backward)
    mask = (x == out) | (x.isnan() & out.isnan())
    return g * mask / mask.sum()


def _spread_ties(g, x, out, dim, keepdim):
    # amax/amin: the gradient of each slice is split evenly among the elements that tie
    mask = x == expand_reduced(out, x.shape, dim, keepdim)
    count = mask.sum(dim, keepdim=True)
    return expand_reduced(g, x.shape, dim, keepdim) * mask / count


def _select_along(g, x_shape, dim, keepdim, indices):
    # max/min along a dim: the gradient goes to the one index that was selected
    if not x_shape:  # a 0-d input: the gradient as it is
        return g
    if not keepdim:
        g = g.unsqueeze(dim)
        indices = indices.unsqueeze(dim)
    return scatter_into_zeros(g, x_shape, dim, indices)


MAX = defop("max", lambda xp, x: xp.max(x), {"x": _evenly_distribute}, node="MaxBackward1")
MIN = defop("min", lambda xp, x: xp.min(x), {"x": _evenly_distribute}, node="MinBackward1")
AMAX = defop(
    "amax",
    lambda xp, x, *, dim, keepdim: xp.amax(x, axis=dim, keepdims=keepdim),
    {"x": _spread_ties},
)
AMIN = defop(
    "amin",
    lambda xp, x, *, dim, keepdim: xp.amin(x, axis=dim, keepdims=keepdim),
    {"x": _spread_ties},
)


def _arg_reduce(fn_index):
    def fwd(xp, x, *, dim, keepdim):
        if x.ndim == 0:  # a 0-d tensor is its own maximum, at index 0
            return x.copy(), xp.zeros((), xp.int64)
        indices = fn_index(x, axis=dim, keepdims=True)
        values = xp.take_along_axis(x, indices, axis=dim)
        if not keepdim:
            values, indices = values.squeeze(dim), indices.squeeze(dim)
        return values, indices.astype(xp.int64)

    return fwd


MAX_DIM = defop(
    "max_dim",
    _arg_reduce(lambda x, **kw: x.argmax(**kw)),
    {"x": lambda g, x_shape, dim, keepdim, out: _select_along(g[0], x_shape, dim, keepdim, out[1])},
    node="MaxBackward0",
    outputs=2,
    differentiable=(0,),
)
MIN_DIM = defop(
    "min_dim",
    _arg_reduce(lambda x, **kw: x.argmin(**kw)),
    {"x": lambda g, x_shape, dim, keepdim, out: _select_along(g[0], x_shape, dim, keepdim, out[1])},
    node="MinBackward0",
    outputs=2,
    differentiable=(0,),
)
ARGMAX = defop(
    "argmax",
    lambda xp, x, *, dim, keepdim: xp.argmax(x, axis=dim, keepdims=keepdim).astype(xp.int64),
)
ARGMIN = defop(
    "argmin",
    lambda xp, x, *, dim, keepdim: xp.argmin(x, axis=dim, keepdims=keepdim).astype(xp.int64),
)


def _logical_reduce(fn):
    def fwd(xp, x, *, dim, keepdim):
        out = fn(x, axis=dim, keepdims=keepdim)
        return out.astype(xp.uint8) if x.dtype == xp.uint8 else out  # PyTorch keeps uint8

    return fwd


ALL = defop("all", _logical_reduce(np.all))
ANY = defop("any", _logical_reduce(np.any))


def _logsumexp_fwd(xp, x, *, dim, keepdim):
    # subtract the max first so exp never overflows; an infinite max is left out
    if x.size:
        m = xp.amax(x, axis=dim, keepdims=True)
        m = xp.where(xp.isfinite(m), m, 0).astype(x.dtype)
    else:
        m = xp.zeros([1 if d in dim else s for d, s in enumerate(x.shape)], x.dtype)
    # float16/bfloat16: PyTorch's composite rounds each step to the dtype, but its sum
    # accumulates in float32 (Note [Reduced-precision opmath])
    wide = np.float32 if x.dtype in LOW_PRECISION else None
    with np.errstate(divide="ignore"):
        total = xp.sum(xp.exp(x - m), axis=dim, keepdims=True, dtype=wide).astype(x.dtype)
        out = xp.log(total) + m
    return out if keepdim else out.squeeze(dim)


LOGSUMEXP = defop(
    "logsumexp",
    _logsumexp_fwd,
    {
        "x": lambda g, x, out, dim, keepdim: (
            expand_reduced(g, x.shape, dim, keepdim)
            * (x - expand_reduced(out, x.shape, dim, keepdim)).exp()
        )
    },
    promote=promotion.floating,
)

# ---- public functions -----------------------------------------------------------------------


def check_grad_dtype(input, dtype) -> None:
    """PyTorch refuses a differentiable reduction into an integer dtype."""
    if (
        dtype is not None
        and input._requires_grad
        and grad_state.enabled
        and not (dtype.is_floating_point or dtype.is_complex)
    ):
        raise RuntimeError(f"Autograd not support dtype: {dtype._legacy}")


@public
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Matches `torch.sum`: integers and bools sum in int64."""
    if dim is None and not keepdim and dtype is None:
        return _sum_all(input)
    check_grad_dtype(input, dtype)
    np_dtype = dtype.np if dtype is not None else None
    if dim is None and not keepdim:
        return apply(SUM, (input,), {"dtype": np_dtype} if np_dtype is not None else {})
    dims = reduce_dims(input, dim)
    return apply(SUM_DIM, (input,), {"dim": dims, "keepdim": keepdim, "dtype": np_dtype})


@public
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Matches `torch.mean`: floating tensors only, as in PyTorch."""
    if dim is not None:
        as_ints(dim)  # a dim of the wrong type is a TypeError before the dtype is looked at
    if dtype is not None:
        if not (dtype.is_floating_point or dtype.is_complex):
            raise RuntimeError(
                "mean(): could not infer output dtype. Optional dtype must be either a floating "
                f"point or complex dtype. Got: {dtype._legacy}"
            )
        input = input.to(dtype)
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {input.dtype._legacy}"
        )
    if dim is None and not keepdim:
        return apply(MEAN, (input,))
    return apply(MEAN_DIM, (input,), {"dim": reduce_dims(input, dim), "keepdim": keepdim})


@public
def prod(input, dim=ALL_DIMS, keepdim=False, *, dtype=None):
    """Matches `torch.prod`: one dim or all; exact gradients where the input has zeros."""
    check_grad_dtype(input, dtype)
    np_dtype = dtype.np if dtype is not None else None
    if dim is ALL_DIMS:
        return apply(PROD, (input,), {"dtype": np_dtype})
    d = wrap_dim(dim, input._data.ndim)
    return apply(PROD_DIM, (input,), {"dim": d, "keepdim": keepdim, "dtype": np_dtype})


def _check_nonempty(input, dims, name, whole: bool) -> None:
    shape = input._data.shape
    if whole and input._data.size == 0:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    for d in dims:
        if shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _max_min(input, dim, keepdim, other, full_op, dim_op, result, pairwise, name):
    if isinstance(dim, Tensor):
        return pairwise(input, dim)
    if other is not None:
        return pairwise(input, other)
    if dim is ALL_DIMS:
        _check_nonempty(input, (), name, True)
        return apply(full_op, (input,))
    d = wrap_dim(dim, input._data.ndim)
    if input._data.ndim:  # (a 0-d tensor is one element)
        _check_nonempty(input, (d,), name, False)
    return result(*apply(dim_op, (input,), {"dim": d, "keepdim": keepdim}))


@public
def max(input, dim=ALL_DIMS, keepdim=False, *, other=None):
    """Matches `torch.max`: the maximum, `(values, indices)` along `dim`, or elementwise."""

    return _max_min(input, dim, keepdim, other, MAX, MAX_DIM, max_result, maximum, "max")


@public
def min(input, dim=ALL_DIMS, keepdim=False, *, other=None):
    """Matches `torch.min`."""

    return _max_min(input, dim, keepdim, other, MIN, MIN_DIM, min_result, minimum, "min")


def _amax_amin(op, name, input, dim, keepdim):
    if input._data.size == 0 and dim is not None:
        for raw in as_ints(dim):  # PyTorch checks each dim as given, in order, for emptiness
            if input._data.shape[wrap_dim(raw, input._data.ndim)] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {raw} to have non-zero size.")
    dims = reduce_dims(input, dim)
    whole = dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0)
    _check_nonempty(input, dims, name, whole)
    return apply(op, (input,), {"dim": dims, "keepdim": keepdim})


@public
def amax(input, dim=(), keepdim=False):
    """Matches `torch.amax`: ties share the gradient evenly."""
    return _amax_amin(AMAX, "amax", input, dim, keepdim)


@public
def amin(input, dim=(), keepdim=False):
    """Matches `torch.amin`: ties share the gradient evenly."""
    return _amax_amin(AMIN, "amin", input, dim, keepdim)


def _arg(op, name, input, dim, keepdim):
    ndim = input._data.ndim
    if dim is not None:
        as_int(dim)  # a dim of the wrong type is a TypeError before the dtype is looked at
    if input.dtype is dtypes.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if input._data.size == 0:
            raise IndexError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        out = apply(op, (input.reshape(-1),), {"dim": 0, "keepdim": False})
        return out.reshape((1,) * ndim) if keepdim else out
    d = wrap_dim(dim, ndim)
    if ndim == 0:
        return apply(op, (input.reshape(1),), {"dim": 0, "keepdim": False})
    _check_nonempty(input, (d,), name, False)
    return apply(op, (input,), {"dim": d, "keepdim": keepdim})


@public
def argmax(input, dim=None, keepdim=False):
    """Matches `torch.argmax`: the first maximum; NaN counts as the maximum."""
    return _arg(ARGMAX, "argmax", input, dim, keepdim)


@public
def argmin(input, dim=None, keepdim=False):
    """Matches `torch.argmin`."""
    return _arg(ARGMIN, "argmin", input, dim, keepdim)


def _logical(op, input, dim, keepdim):
    if isinstance(dim, (tuple, list)) and not dim and input._data.ndim:
        # an empty dim list reduces nothing: each element is tested on its own
        return input != 0 if input.dtype is not dtypes.uint8 else (input != 0).to(dtypes.uint8)
    return apply(op, (input,), {"dim": reduce_dims(input, dim), "keepdim": keepdim})


@public
def all(input, dim=None, keepdim=False):
    """Matches `torch.all`: bool result (uint8 for uint8 input, as in PyTorch)."""
    return _logical(ALL, input, dim, keepdim)


@public
def any(input, dim=None, keepdim=False):
    """Matches `torch.any`."""
    return _logical(ANY, input, dim, keepdim)


@public
def logsumexp(input, dim=REQUIRED, keepdim=False):
    """Matches `torch.logsumexp`: computed stably as max + log(sum(exp(x - max)))."""
    if dim is None:
        raise type_error(dim, "tuple of ints")
    if isinstance(dim, (tuple, list)) and not dim and input._data.ndim and input._data.size:
        # PyTorch reduces nothing into a 0-d output and fails to write it back
        raise RuntimeError(
            f"output with shape [] doesn't match the broadcast shape {[1] * input._data.ndim}"
        )
    return apply(LOGSUMEXP, (input,), {"dim": reduce_dims(input, dim), "keepdim": keepdim})


@public
def count_nonzero(input, dim=None):
    """Matches `torch.count_nonzero`."""
    return sum(input != 0, dim if dim is not None else None)
