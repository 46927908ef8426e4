"""Scans along a dim: cumsum and cumprod, cummax and cummin."""

from __future__ import annotations

import numpy as np

from ... import return_types
from ..creation.factories import tensor, zeros_like
from ..elementwise.complex_numbers import conjugate
from ..shape.reshaping import wrap_dim
from ..table.argument_errors import REQUIRED
from ..table.arguments import as_int
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .reduce_ops import check_grad_dtype


def _scan_dtype(x, dtype):
    # PyTorch accumulates integers and bools in int64 unless told otherwise
    return np.int64 if dtype is None and x.dtype.kind in "biu" else dtype


def _scan_fwd(name):
    def fwd(xp, x, *, dim, dtype=None):
        fn = getattr(xp, name)
        dtype = _scan_dtype(x, dtype)
        if x.ndim == 0:  # NumPy's scans would flatten a 0-d array
            return fn(x.reshape(1), axis=0, dtype=dtype).reshape(())
        return fn(x, axis=dim, dtype=dtype)

    return fwd


def _reverse_cumsum(g, dim):
    if g.dim() == 0:
        return g
    return g.flip(dim).cumsum(dim).flip(dim)


def _cumprod_grad(g, x, out, dim):
    # d(out_k)/dx_j = prod_{i <= k, i != j} x_i for j <= k; it is out_k / x_j when x_j != 0
    if x.dim() == 0 or x.shape[dim] <= 1:
        return g
    if not (x._data == 0).any():
        return _reverse_cumsum(g * conjugate(out), dim) / conjugate(x)  # Note [Complex gradients]
    return _cumprod_grad_with_zeros(g, x, dim)


def _cumprod_grad_with_zeros(g, x, dim):
    """The same gradient without dividing by x: row j of an (n, n) table is the cumprod of x
    with x_j replaced by 1, so entry (j, k) is prod_{i <= k, i != j} x_i. O(n^2) memory, used
    only when x has a zero."""

    n = x.shape[dim]
    xm, gm = x.movedim(dim, -1), g.movedim(dim, -1)
    eye = tensor(np.eye(n, dtype=bool))
    upper = tensor(np.triu(np.ones((n, n), dtype=bool)))  # k >= j
    table = xm.unsqueeze(-2).expand(*xm.shape[:-1], n, n).masked_fill(eye, 1).cumprod(-1)
    grad = (conjugate(table) * gm.unsqueeze(-2)).masked_fill(upper.logical_not(), 0).sum(-1)
    return grad.movedim(-1, dim)


CUMSUM = defop("cumsum", _scan_fwd("cumsum"), {"x": lambda g, dim: _reverse_cumsum(g, dim)})
CUMPROD = defop(
    "cumprod", _scan_fwd("cumprod"), {"x": lambda g, x, out, dim: _cumprod_grad(g, x, out, dim)}
)


def _scan(op, input, dim, dtype):

    check_grad_dtype(input, dtype)
    d = wrap_dim(dim, input._data.ndim)
    if dtype is not None and dtype.np == np.bool_ and input._data.ndim and input._data.size:
        raise NotImplementedError(f"\"{op.name}_out_cpu\" not implemented for 'Bool'")
    return apply(op, (input,), {"dim": d, "dtype": dtype.np if dtype is not None else None})


@public
def cumsum(input, dim=REQUIRED, *, dtype=None):
    """Matches `torch.cumsum`: integers and bools accumulate in int64."""
    return _scan(CUMSUM, input, dim, dtype)


@public
def cumprod(input, dim=REQUIRED, *, dtype=None):
    """Matches `torch.cumprod`: gradients are exact where the input has zeros."""
    return _scan(CUMPROD, input, dim, dtype)


@public(function=False)
def cumsum_(self, dim, *, dtype=None):
    """Matches `torch.Tensor.cumsum_`."""
    d = wrap_dim(dim, self._data.ndim)
    attrs = {"dim": d, "dtype": dtype.np if dtype is not None else None}
    return apply_inplace(CUMSUM, (self,), attrs, name="cumsum_")


@public(function=False)
def cumprod_(self, dim, *, dtype=None):
    """Matches `torch.Tensor.cumprod_`."""
    d = wrap_dim(dim, self._data.ndim)
    attrs = {"dim": d, "dtype": dtype.np if dtype is not None else None}
    return apply_inplace(CUMPROD, (self,), attrs, name="cumprod_")


# ---- running maxima and minima ------------------------------------------------------------------


def _cum_extreme(ufunc, better):
    def fwd(xp, x, *, dim):
        if x.ndim == 0:  # a 0-d tensor is its own running extreme
            return x.copy(), xp.zeros((), xp.int64)
        if x.shape[dim] == 0:
            return x.copy(), xp.zeros(x.shape, xp.int64)
        values = ufunc.accumulate(x, axis=dim)
        # an element that reaches the running extreme (ties: the later one) or is nan moves the
        # index to itself, as PyTorch's scan does
        moves = better(x, values)
        if x.dtype.kind in "fc":
            moves |= xp.isnan(x)
        shape = [1] * x.ndim
        shape[dim] = x.shape[dim]
        position = xp.arange(x.shape[dim]).reshape(shape)
        indices = xp.maximum.accumulate(xp.where(moves, position, 0), axis=dim)
        return values, indices.astype(xp.int64)

    return fwd


def _cum_extreme_grad(g, x, dim, out):

    # each position's gradient goes to the element its running extreme came from
    if x.dim() == 0:
        return g[0]
    return zeros_like(x).scatter_add(dim, out[1], g[0])


CUMMAX = defop(
    "cummax",
    _cum_extreme(np.maximum, lambda x, v: x >= v),
    {"x": _cum_extreme_grad},
    outputs=2,
    differentiable=(0,),
)
CUMMIN = defop(
    "cummin",
    _cum_extreme(np.minimum, lambda x, v: x <= v),
    {"x": _cum_extreme_grad},
    outputs=2,
    differentiable=(0,),
)


def _cum_extreme_call(op, result, input, dim):
    dim = as_int(dim)
    ndim = input._data.ndim
    if input._data.size == 0 and not -max(ndim, 1) <= dim < max(ndim, 1):
        dim = 0  # an empty input's results come before PyTorch looks at the dim
    if ndim == 0 and dim not in (-1, 0):
        raise IndexError(f"{op.name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    values, indices = apply(op, (input,), {"dim": wrap_dim(dim, input._data.ndim)})
    return result(values, indices)


@public
def cummax(input, dim=REQUIRED):
    """Matches `torch.cummax`: running maxima and where each came from (ties: the later)."""
    return _cum_extreme_call(CUMMAX, return_types.cummax, input, dim)


@public
def cummin(input, dim=REQUIRED):
    """Matches `torch.cummin`: running minima and where each came from (ties: the later)."""
    return _cum_extreme_call(CUMMIN, return_types.cummin, input, dim)
