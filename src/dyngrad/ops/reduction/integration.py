"""The trapezoid rule (`trapezoid`, `trapz`, `cumulative_trapezoid`), covariance (`cov`,
`corrcoef`), written as PyTorch composes them, so their nodes are PyTorch's."""

from __future__ import annotations

import warnings

from ..._tensor import Tensor
from ..creation.factories import zeros
from ..elementwise.scalar_ops import div_scalar, mul_scalar
from ..linalg.products import mm
from ..shape.reshaping import wrap_dim
from ..table.surface import public


def _ends(y, dim):
    n = y.shape[dim]
    return y.narrow(dim, 1, n - 1), y.narrow(dim, 0, n - 1)


def _spacing(y, x, dim, name):
    # the spacing of the samples x along y's `dim`, as PyTorch takes it: a 1-D x viewed as
    # (1, ..., n, ..., 1), a shorter one padded with leading 1s, then its ends subtracted
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.dim()
        shape[dim] = x.shape[0]
        x = x.view(shape)
    elif x.dim() < y.dim():
        x = x.view((1,) * (y.dim() - x.dim()) + tuple(x.shape))
    right, left = _ends(x, dim)
    return right - left


def _reduced_zeros(y, dim):
    shape = list(y.shape)
    del shape[dim]
    return zeros(shape, dtype=y.dtype)


@public(method=False)
def trapezoid(y, x=None, *, dx=None, dim: int = -1):
    """Matches `torch.trapezoid`: the integral of y along `dim` by the trapezoid rule."""
    dim = wrap_dim(dim, y.dim())
    if isinstance(x, Tensor):
        if y.shape[dim] == 0:
            return _reduced_zeros(y, dim)
        right, left = _ends(y, dim)
        return div_scalar(((right + left) * _spacing(y, x, dim, "trapezoid")).sum(dim), 2.0)
    dx = 1 if dx is None else dx if x is None else x
    if y.shape[dim] == 0:
        return _reduced_zeros(y, dim)
    return mul_scalar(y.sum(dim) - mul_scalar(y.select(dim, 0) + y.select(dim, -1), 0.5), dx)


@public(method=False)
def trapz(y, x=None, *, dx=None, dim: int = -1):
    """Matches `torch.trapz` (an alias of `trapezoid`)."""
    return trapezoid(y, x, dx=dx, dim=dim)


@public(method=False)
def cumulative_trapezoid(y, x=None, *, dx=None, dim: int = -1):
    """Matches `torch.cumulative_trapezoid`: the running trapezoid integral along `dim`."""
    dim = wrap_dim(dim, y.dim())
    right, left = _ends(y, dim) if y.shape[dim] else (y, y)
    if isinstance(x, Tensor):
        spacing = _spacing(y, x, dim, "cumulative_trapezoid")
        return div_scalar(((right + left) * spacing).cumsum(dim), 2.0)
    dx = 1 if dx is None else dx if x is None else x
    return mul_scalar(left + right, dx / 2.0).cumsum(dim)


# ---- covariance -----------------------------------------------------------------------------


@public
def cov(input, *, correction: int = 1, fweights=None, aweights=None):
    """Matches `torch.cov`: the covariance of the rows (variables) over the columns
    (observations), with PyTorch's frequency and observation weights."""
    if input.dim() > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{input.dim()} dimensions"
        )
    x = input.reshape(1, -1) if input.dim() < 2 else input
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = float(n)
        avg = x.sum(1) / w_sum
        norm = w_sum - correction
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
    if float(norm.detach() if isinstance(norm, Tensor) else norm) <= 0:
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "number of observations.",
            UserWarning,
            stacklevel=2,
        )
        norm = norm * 0 if isinstance(norm, Tensor) else 0.0
    xm = x - avg.unsqueeze(1)
    xw = xm * w if w is not None else xm
    return mm(xw, xm.t()).div(norm).squeeze()


@public
def corrcoef(input):
    """Matches `torch.corrcoef`: Pearson correlation coefficients of the rows."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    stddev = c.diagonal().sqrt()
    c = c / stddev.reshape(-1, 1)
    c = c / stddev.reshape(1, -1)
    return c.clip(-1, 1)
