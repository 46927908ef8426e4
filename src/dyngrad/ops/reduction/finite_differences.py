"""`torch.gradient`: central differences inside, one-sided (first or second order) at the
edges, written as PyTorch composes it (slices, arithmetic, one `cat` per dim), so each result
records CatBackward0 and its gradient is PyTorch's."""

from __future__ import annotations

from ..._tensor import Tensor
from ...runtime import dtypes
from ..shape.joining import cat
from ..shape.reshaping import normalize_dims
from ..table.surface import public


def _slice(t, dim: int, start, stop=None):
    return t[(slice(None),) * dim + (slice(start, stop),)]


def _check(input, spacing_size, dims, edge_order) -> tuple:
    """PyTorch's checks, in its order; the dims to differentiate along."""
    if input.dtype == dtypes.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    ndim = input.dim()
    if spacing_size is not None and dims is None and spacing_size != ndim:
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {ndim}', since dim argument was not given, but got a list "
            f"of length {spacing_size}"
        )
    if spacing_size is not None and dims is not None and spacing_size != len(dims):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
            f"dim arguments to have the same length, but got a spacing argument of length "
            f"{spacing_size} and a dim argument of length {len(dims)}."
        )
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = tuple(range(ndim)) if dims is None else normalize_dims(dims, ndim)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
    return dims


def _uniform(f, dim: int, dx, edge_order: int):
    """Samples `dx` apart: (f[i+1] - f[i-1]) / 2dx inside."""
    center = (_slice(f, dim, 2) - _slice(f, dim, 0, -2)) / dx
    if edge_order == 1:
        first = (_slice(f, dim, 1, 2) - _slice(f, dim, 0, 1)) / dx
        last = (_slice(f, dim, -1) - _slice(f, dim, -2, -1)) / dx
    else:  # the parabola through the three samples at each end
        first = (
            _slice(f, dim, 0, 1) * -1.5 + _slice(f, dim, 1, 2) * 2 - _slice(f, dim, 2, 3) * 0.5
        ) / dx
        last = (
            _slice(f, dim, -3, -2) * 0.5 + _slice(f, dim, -2, -1) * -2 + _slice(f, dim, -1) * 1.5
        ) / dx
    return cat([first, center / 2, last], dim)


def _coordinates(f, dim: int, x, edge_order: int):
    """Samples at the coordinates `x`: the second-order formula for uneven steps inside."""
    if x.dim() != 1:
        raise RuntimeError(
            "torch.gradient expected each element of spacing to have one dimension, but got "
            f"an element with {x.dim()} dimensions!"
        )
    shape = [1] * f.dim()
    shape[dim] = -1
    h = x.diff(1, 0)
    h1, h2 = h[:-1], h[1:]
    a = (-h2 / (h1 * (h1 + h2))).reshape(shape)
    b = ((h2 - h1) / (h1 * h2)).reshape(shape)
    c = (h1 / (h2 * (h1 + h2))).reshape(shape)
    center = a * _slice(f, dim, 0, -2) + b * _slice(f, dim, 1, -1) + c * _slice(f, dim, 2)
    if edge_order == 1:
        first = (_slice(f, dim, 1, 2) - _slice(f, dim, 0, 1)) / h[0]
        last = (_slice(f, dim, -1) - _slice(f, dim, -2, -1)) / h[-1]
    else:
        a = -(2.0 * h[0] + h[1]) / (h[0] * (h[0] + h[1]))
        b = (h[0] + h[1]) / (h[0] * h[1])
        c = -h[0] / (h[1] * (h[0] + h[1]))
        first = a * _slice(f, dim, 0, 1) + b * _slice(f, dim, 1, 2) + c * _slice(f, dim, 2, 3)
        a = h[-1] / (h[-2] * (h[-1] + h[-2]))
        b = -(h[-1] + h[-2]) / (h[-1] * h[-2])
        c = (2 * h[-1] + h[-2]) / (h[-1] * (h[-1] + h[-2]))
        last = a * _slice(f, dim, -3, -2) + b * _slice(f, dim, -2, -1) + c * _slice(f, dim, -1)
    return cat([first, center, last], dim)


@public(method=False)
def gradient(input, *, spacing=None, dim=None, edge_order: int = 1) -> tuple:
    """Matches `torch.gradient`: the derivative estimated along each of `dim` (every dim by
    default), one tensor per dim; `spacing` is one step for all dims, a step per dim, or
    each dim's sample coordinates (1-D tensors)."""
    dims = [dim] if isinstance(dim, int) else dim
    if isinstance(spacing, Tensor) and spacing.dim() == 0:
        spacing = spacing.item()
    listed = isinstance(spacing, (list, tuple))
    dims = _check(input, len(spacing) if listed else None, dims, edge_order)
    if not listed:
        spacing = [1.0 if spacing is None else spacing] * len(dims)
    results = []
    for d, step in zip(dims, spacing):
        if isinstance(step, Tensor):
            results.append(_coordinates(input, d, step, edge_order))
        else:
            results.append(_uniform(input, d, step, edge_order))
    return tuple(results)
