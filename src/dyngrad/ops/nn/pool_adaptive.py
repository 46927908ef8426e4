"""Adaptive max pooling (1-d, 2-d): the maximum over each of an output-sized grid of windows,
with the flat index of where it came from (AdaptiveMaxPool2DBackward0)."""

from __future__ import annotations

from ..creation.factories import zeros
from ..table.record import apply
from ..table.registry import defop
from .conv import _tuple
from .pool_functional import adaptive_output_size, check_nonempty


def _bounds(size: int, out: int, i: int) -> tuple:
    # PyTorch's window i of `out` over `size`: [floor(i size / out), ceil((i + 1) size / out))
    return (i * size) // out, -((-(i + 1) * size) // out)


def _adaptive_max_fwd(xp, x, *, output_size):
    h, w = x.shape[-2:]
    oh, ow = output_size
    lead = x.shape[:-2]
    values = xp.empty(lead + (oh, ow), dtype=x.dtype)
    indices = xp.empty(lead + (oh, ow), dtype=xp.int64)
    for i in range(oh):
        top, bottom = _bounds(h, oh, i)
        for j in range(ow):
            left, right = _bounds(w, ow, j)
            window = x[..., top:bottom, left:right].reshape(lead + (-1,))
            # the first maximum, or the first nan (max propagates nan, as PyTorch's)
            pick = xp.argmax(xp.where(xp.isnan(window), xp.inf, window), axis=-1)
            values[..., i, j] = xp.take_along_axis(window, pick[..., None], -1)[..., 0]
            width = right - left
            indices[..., i, j] = (top + pick // width) * w + left + pick % width
    return values, indices


def _adaptive_max_grad(g, x, out):

    # each output's gradient goes to its maximum's element
    flat = x.shape[:-2] + (x.shape[-2] * x.shape[-1],)
    plane = zeros(*flat, dtype=g[0].dtype)
    return plane.scatter_add(-1, out[1].flatten(-2), g[0].flatten(-2)).view(*x.shape)


ADAPTIVE_MAX_POOL = defop(
    "adaptive_max_pool2d",
    _adaptive_max_fwd,
    {"x": _adaptive_max_grad},
    node="AdaptiveMaxPool2DBackward0",
    outputs=2,
    differentiable=(0,),
)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Matches `torch.nn.functional.adaptive_max_pool2d` (and `..._with_indices`)."""
    size = adaptive_output_size("adaptive_max_pool2d", input, output_size, 2)
    shape = input._data.shape
    if len(shape) not in (3, 4):
        raise RuntimeError(
            f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(shape)}"
        )
    if min(size) < 0:
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(size)}: "
            f"{list(shape[:-2] + size)}"
        )
    check_nonempty("adaptive_max_pool2d", shape)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"adaptive_max_pool2d\" not implemented for '{input.dtype._legacy}'"
        )
    values, indices = apply(ADAPTIVE_MAX_POOL, (input,), {"output_size": size})
    return (values, indices) if return_indices else values


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Matches `torch.nn.functional.adaptive_max_pool1d`."""
    if input._data.ndim not in (2, 3):
        raise RuntimeError(
            f"adaptive_max_pool1d(): Expected 2D or 3D tensor, but got: {list(input._data.shape)}"
        )
    size = _tuple(output_size, 1)[0]
    values, indices = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), return_indices=True)
    values, indices = values.squeeze(-2), indices.squeeze(-2)
    return (values, indices) if return_indices else values


__all__ = ["adaptive_max_pool1d", "adaptive_max_pool2d"]
