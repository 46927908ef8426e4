"""Sorting: sort, argsort, topk, kthvalue, msort.

NaN sorts as the largest value, as in PyTorch. On the CPU, equal values come in PyTorch's
order (see Note [Tie order of sort and topk]); on other devices every sort is stable.
"""

from __future__ import annotations

import numpy as np

from ...return_types import kthvalue as kthvalue_result
from ...return_types import sort as sort_result
from ...return_types import topk as topk_result
from ...runtime import dtypes
from ..shape.reshaping import wrap_dim
from ..shape.scatter import scatter_into_zeros
from ..table.arguments import as_int
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .select_order import kthvalue_order, sort_order, topk_order


def stable_order(xp, x, dim, descending):
    """A stable argsort; descending keeps equal values in their original order too."""
    if not descending:
        return xp.argsort(x, axis=dim, kind="stable")
    # sort the reversed array ascending and reverse back: ties stay in order, NaN comes first
    n = x.shape[dim]
    reverse = xp.flip(x, axis=dim)
    return n - 1 - xp.flip(xp.argsort(reverse, axis=dim, kind="stable"), axis=dim)


def sort_indices(xp, x, dim, descending, stable=False):
    """The indices of `torch.sort` along `dim`: see Note [Tie order of sort and topk]."""
    index = stable_order(xp, x, dim, descending)
    if xp is np and not stable:
        index = sort_order(x, index, dim, descending)
    return index


def _sort_fwd(stable):
    def fwd(xp, x, *, dim, descending):
        if x.ndim == 0:
            return x.copy(), xp.zeros((), dtype=xp.int64)
        index = sort_indices(xp, x, dim, descending, stable)
        return xp.take_along_axis(x, index, axis=dim), index.astype(xp.int64)

    return fwd


def _topk_fwd(xp, x, *, k, dim, largest, sorted):
    if x.ndim == 0:
        return x.copy(), xp.zeros((), dtype=xp.int64)
    order = stable_order(xp, x, dim, largest)
    if xp is np:
        index = topk_order(x, order, k, dim, largest, sorted)
    else:
        index = xp.take(order, range(k), axis=dim)
    return xp.take_along_axis(x, index, axis=dim), index.astype(xp.int64)


def _kthvalue_fwd(xp, x, *, k, dim, keepdim):
    if x.ndim == 0:
        return x.copy(), xp.zeros((), dtype=xp.int64)
    order = stable_order(xp, x, dim, False)
    if xp is np:
        index = kthvalue_order(x, order, k, dim)
    else:
        index = xp.take(order, [k - 1], axis=dim)
    values = xp.take_along_axis(x, index, axis=dim)
    if not keepdim:
        values, index = values.squeeze(dim), index.squeeze(dim)
    return values, index.astype(xp.int64)


def _to_positions(g, x_shape, dim, index, keepdim=True):
    # each value goes back to where it came from

    if len(x_shape) == 0:
        return g[0]
    grad = g[0]
    if not keepdim:
        grad, index = grad.unsqueeze(dim), index.unsqueeze(dim)
    return scatter_into_zeros(grad, x_shape, dim, index)


def _values_and_indices(name, fwd, grad, node=None):
    """A row returning (values, indices); only the values have a gradient."""
    return defop(name, fwd, {"x": grad}, node=node, outputs=2, differentiable=(0,))


def _sorted_grad(g, x_shape, dim, out):
    return _to_positions(g, x_shape, dim, out[1])


SORT = _values_and_indices("sort", _sort_fwd(stable=False), _sorted_grad)
# sort(stable=True) is a separate overload in PyTorch, with its own node name
SORT_STABLE = _values_and_indices(
    "sort_stable", _sort_fwd(stable=True), _sorted_grad, node="SortBackward1"
)
TOPK = _values_and_indices("topk", _topk_fwd, _sorted_grad)
KTHVALUE = _values_and_indices(
    "kthvalue",
    _kthvalue_fwd,
    lambda g, x_shape, dim, keepdim, out: _to_positions(g, x_shape, dim, out[1], keepdim),
)
ARGSORT = defop(
    "argsort",
    lambda xp, x, *, dim, descending, stable: (
        xp.zeros((), dtype=xp.int64)
        if x.ndim == 0
        else sort_indices(xp, x, dim, descending, stable).astype(xp.int64)
    ),
)


@public
def sort(input, dim=-1, descending=False, *, stable=False):
    """Matches `torch.sort`: `(values, indices)`, equal values in PyTorch's CPU order."""
    d = wrap_dim(dim, input._data.ndim)
    op = SORT_STABLE if stable else SORT
    return sort_result(*apply(op, (input,), {"dim": d, "descending": bool(descending)}))


@public
def argsort(input, dim=-1, descending=False, *, stable=False):
    """Matches `torch.argsort`."""
    d = wrap_dim(dim, input._data.ndim)
    attrs = {"dim": d, "descending": bool(descending), "stable": bool(stable)}
    return apply(ARGSORT, (input,), attrs)


@public
def msort(input):
    """Matches `torch.msort`: sorted along dim 0."""
    return sort(input, 0).values


@public
def topk(input, k, dim=-1, largest=True, sorted=True):
    """Matches `torch.topk`: the k largest (or smallest) along `dim`, in sorted order."""
    k = as_int(k)
    d = wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d] if input._data.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if input.dtype is dtypes.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    attrs = {"k": int(k), "dim": d, "largest": bool(largest), "sorted": bool(sorted)}
    return topk_result(*apply(TOPK, (input,), attrs))


@public
def kthvalue(input, k, dim=-1, keepdim=False):
    """Matches `torch.kthvalue`: the k-th smallest value (from 1) and its index."""
    k = as_int(k)
    d = wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d] if input._data.ndim else 1
    if size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if input.dtype is dtypes.bool_:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    attrs = {"k": int(k), "dim": d, "keepdim": bool(keepdim)}
    return kthvalue_result(*apply(KTHVALUE, (input,), attrs))
