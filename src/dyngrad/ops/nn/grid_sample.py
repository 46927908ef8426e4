"""Sampling an input at grid positions (`grid_sample`: bilinear or nearest, 4-D or 5-D; bicubic,
4-D) and the affine grids that feed it (`affine_grid`): GridSampler2DBackward0,
AffineGridGeneratorBackward0.

# Note [Grid sampling as a gather]
# Each output is a weighted sum over the corners of the cell its source point falls in: a
# gather from the input with weights that depend on the grid. The source point is the grid
# value unnormalized, then reflected and clipped for the padding modes: a piecewise-affine
# map, so it is taken as `x = grid * slope + offset` with the slope and offset constants of
# the piece (0 where clipped, -1 where reflected). The formulas are then Tensor ops (gather,
# scatter_add, products of the weights), and double backward comes free.

# Note [Bicubic taps]
# Bicubic reads the 4x4 taps floor(x) - 1 .. floor(x) + 2 around the unnormalized source point,
# weighted by cubic convolution (A = -0.75) of frac = x - floor(x). As in PyTorch, the padding
# mode applies to each tap's integer coordinate (clipped or reflected into the input), not to
# the source point: so frac's slope in the grid is the unnormalizing constant everywhere, and
# a tap outside the input reads 0 only under "zeros".
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np

from ..._tensor import Tensor
from ...runtime import namespace
from ..creation.factories import zeros
from ..shape.joining import cat, stack
from ..table.record import apply
from ..table.registry import defop
from .pool import MAX_POOL_OPS


def _unnormalize(grid, size: int, align_corners: bool):
    # PyTorch's grid_sampler_unnormalize, in its order of operations
    if align_corners:
        return ((grid + 1) / 2) * (size - 1), (size - 1) / 2
    return ((grid + 1) * size - 1) / 2, size / 2


def _reflect(xp, x, twice_low: int, twice_high: int):
    """The reflection of x into [low, high] and the sign of its slope."""
    if twice_low == twice_high:
        return xp.zeros_like(x), xp.zeros_like(x)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    sign = xp.where(x < low, -1.0, 1.0)
    x = xp.abs(x - low)
    extra = xp.fmod(x, span)
    even = xp.floor(x / span) % 2 == 0
    sign = xp.where(even, sign, -sign)
    return xp.where(even, extra + low, span - extra + low).astype(x.dtype), sign


def _reflection_bounds(size: int, align_corners: bool):
    return (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)


def _source(grid, sizes, mode: str, padding_mode: str, align_corners: bool):
    """Per input dim (in the input's order): the source coordinate and its slope in the grid."""
    xp, nd = namespace(grid), len(sizes)
    points = []
    for d, size in enumerate(sizes):
        x, slope = _unnormalize(grid[..., nd - 1 - d], size, align_corners)
        slope = xp.full(x.shape, slope, dtype=x.dtype)
        if mode == "bicubic":  # the padding applies to each tap (Note [Bicubic taps])
            points.append((x, slope))
            continue
        if padding_mode == "reflection":
            x, sign = _reflect(xp, x, *_reflection_bounds(size, align_corners))
            slope = slope * sign
        if padding_mode != "zeros":
            # PyTorch's clip_coordinates_set_grad: no slope on the clipped ends, bounds included
            slope = slope * ((x > 0) & (x < size - 1))
            x = xp.clip(x, 0, size - 1)
        points.append((x, slope))
    return points


def _pad_tap(xp, position, size: int, padding_mode: str, align_corners: bool):
    """A bicubic tap's integer coordinate moved into the input as the padding mode says."""
    if padding_mode == "reflection":
        position = _reflect(xp, position, *_reflection_bounds(size, align_corners))[0]
    if padding_mode != "zeros":
        position = xp.clip(position, 0, size - 1)
    return position


class Corner:
    """One corner (tap) of the cells the outputs read: its flat index into an input plane,
    whether it lies inside the input, and which tap of the cell it is in each dim (0 or 1 for
    bilinear, 0..3 for bicubic)."""

    __slots__ = ("index", "mask", "taps")


def _corners(points, sizes, mode: str, padding_mode: str, align_corners: bool):
    """The corners each output reads, from (source, slope) per dim (arrays)."""
    xp = namespace(points[0][0])
    strides = np.cumprod((1,) + tuple(sizes[:0:-1]))[::-1].tolist()
    if mode == "nearest":
        # std::nearbyint: halves to even, as rint
        offsets = [[xp.rint(x)] for x, _ in points]
    elif mode == "bicubic":
        offsets = [
            [_pad_tap(xp, xp.floor(x) + k, size, padding_mode, align_corners) for k in _CUBIC_TAPS]
            for (x, _), size in zip(points, sizes)
        ]
    else:
        offsets = [[xp.floor(x), xp.floor(x) + 1] for x, _ in points]
    result = []
    for corner in itertools.product(*(range(len(o)) for o in offsets)):
        item = Corner()
        mask, index = True, 0
        for d, c in enumerate(corner):
            position = offsets[d][c]
            mask = mask & (position >= 0) & (position <= sizes[d] - 1)
            index = index + xp.clip(position, 0, sizes[d] - 1).astype(xp.int64) * strides[d]
        item.index, item.mask, item.taps = index, mask, corner
        result.append(item)
    return result


def _fractions(points, mode: str):
    return [x - namespace(x).floor(x) for x, _ in points] if mode != "nearest" else None


# PyTorch's cubic convolution constant, and the taps' offsets from floor(x)
_A = -0.75
_CUBIC_TAPS = (-1, 0, 1, 2)


def _cubic_near(x):  # the kernel on |x| <= 1
    return ((_A + 2) * x - (_A + 3)) * x * x + 1


def _cubic_far(x):  # the kernel on 1 < |x| < 2
    return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A


def _cubic_near_slope(x):
    return (3 * (_A + 2) * x - 2 * (_A + 3)) * x


def _cubic_far_slope(x):
    return (3 * _A * x - 10 * _A) * x + 8 * _A


def _line_weights(mode: str, frac):
    """Per tap along one dim: its weight as a function of frac (arrays or Tensors)."""
    if mode == "bicubic":
        return [
            _cubic_far(frac + 1),
            _cubic_near(frac),
            _cubic_near(1 - frac),
            _cubic_far(2 - frac),
        ]
    return [1 - frac, frac]


def _line_weight_slopes(mode: str, frac):
    """Per tap along one dim: d weight / d frac (Tensors; bilinear's are the signs -1, 1)."""
    if mode == "bicubic":
        return [
            _cubic_far_slope(frac + 1),
            _cubic_near_slope(frac),
            -_cubic_near_slope(1 - frac),
            -_cubic_far_slope(2 - frac),
        ]
    return [-1, 1]


def _weights(corner, lines):
    """The product over dims of the corner's tap weights (without the in-bounds mask), and
    its factors; `lines` holds each dim's `_line_weights`."""
    factors = [lines[d][c] for d, c in enumerate(corner.taps)]
    weight = factors[0]
    for f in factors[1:]:
        weight = weight * f
    return weight, factors


def _grid_sample_fwd(xp, input, grid, *, mode, padding_mode, align_corners):
    sizes = input.shape[2:]
    points = _source(grid, sizes, mode, padding_mode, align_corners)
    fractions = _fractions(points, mode)
    lines = None if fractions is None else [_line_weights(mode, f) for f in fractions]
    flat = input.reshape(input.shape[:2] + (-1,))
    n, out = grid.shape[0], grid.shape[1:-1]
    result = xp.zeros(input.shape[:2] + (int(np.prod(out)),), dtype=input.dtype)
    for corner in _corners(points, sizes, mode, padding_mode, align_corners):
        values = xp.take_along_axis(flat, corner.index.reshape(n, 1, -1), axis=2)
        weight = corner.mask if mode == "nearest" else _weights(corner, lines)[0] * corner.mask
        result += values * weight.reshape(n, 1, -1).astype(input.dtype)
    return result.reshape(input.shape[:2] + out)


def _plan(grid, sizes, mode, padding_mode, align_corners):
    """The corners, with each weight factor a Tensor in `grid` (see Note [Grid sampling as a
    gather]): frac = grid * slope + (frac - grid * slope), the constants from the arrays."""
    data = grid._data
    xp = namespace(data)
    points = _source(data, sizes, mode, padding_mode, align_corners)
    corners = _corners(points, sizes, mode, padding_mode, align_corners)
    if mode == "nearest":
        return corners, None, points
    nd = len(sizes)
    fractions = []
    for d, (x, slope) in enumerate(points):
        component = data[..., nd - 1 - d]
        offset = (x - xp.floor(x)) - component * slope
        fractions.append(
            grid[..., nd - 1 - d] * Tensor._wrap(slope.astype(data.dtype))
            + Tensor._wrap(offset.astype(data.dtype))
        )
    return corners, fractions, points


def _broadcast(index, shape):
    return namespace(index).broadcast_to(index, tuple(shape))


def _grid_sample_input_grad(g, grid, input_shape, mode, padding_mode, align_corners):
    # each output's gradient, weighted, added back at the corners it read: one scatter of
    # every corner's share into the input planes (max pooling's backward row: a bincount,
    # far faster than scatter_add's ufunc.at)
    n, c = input_shape[:2]
    nd = len(input_shape) - 2
    corners, fractions, _ = _plan(grid, input_shape[2:], mode, padding_mode, align_corners)
    lines = None if fractions is None else [_line_weights(mode, f) for f in fractions]
    flat_g = g.reshape(n, c, -1)
    shares, indices = [], []
    for corner in corners:
        weight = Tensor._wrap(corner.mask.astype(g._data.dtype))
        if lines is not None:
            weight = _weights(corner, lines)[0] * weight
        shares.append(flat_g * weight.reshape(n, 1, -1))
        indices.append(_broadcast(corner.index.reshape(n, 1, -1), flat_g.shape))
    trailing = (1,) * (nd - 1)  # the scatter reads the last nd dims as positions in a plane
    share = cat(shares, 2).reshape(n, c, -1, *trailing)
    index = namespace(indices[0]).concatenate(indices, 2).reshape(share.shape)
    attrs = {"x_shape": tuple(input_shape), "distinct": False}
    return apply(MAX_POOL_OPS[nd].backward, (share, Tensor._wrap(index)), attrs)


def _grid_sample_grid_grad(g, input, grid, mode, padding_mode, align_corners):
    # d out / d grid_k = sum over corners and channels of g * value * d weight / d frac * slope
    sizes = tuple(input.shape[2:])
    nd = len(sizes)
    if mode == "nearest":
        return zeros(*grid.shape, dtype=grid.dtype, device=grid.device)
    corners, fractions, points = _plan(grid, sizes, mode, padding_mode, align_corners)
    lines = [_line_weights(mode, f) for f in fractions]
    line_slopes = [_line_weight_slopes(mode, f) for f in fractions]
    n = input.shape[0]
    flat = input.reshape(n, input.shape[1], -1)
    flat_g = g.reshape(n, input.shape[1], -1)
    per_dim = [0] * nd
    for corner in corners:
        index = Tensor._wrap(_broadcast(corner.index.reshape(n, 1, -1), flat_g.shape))
        mask = Tensor._wrap(corner.mask.reshape(n, -1).astype(grid._data.dtype))
        seen = (flat_g * flat.gather(2, index)).sum(1) * mask
        _, factors = _weights(corner, lines)
        for d in range(nd):
            others = seen
            for e, f in enumerate(factors):
                if e != d:
                    others = others * f.reshape(n, -1)
            dw = line_slopes[d][corner.taps[d]]
            if isinstance(dw, int):  # bilinear: a sign
                term = others if dw > 0 else -others
            else:
                term = others * dw.reshape(n, -1)
            per_dim[d] = per_dim[d] + term
    slopes = [Tensor._wrap(slope.reshape(n, -1).astype(grid._data.dtype)) for _, slope in points]
    # grid's last dim lists x (the last input dim) first
    parts = [per_dim[d] * slopes[d] for d in reversed(range(nd))]
    return stack(parts, -1).reshape(*grid.shape)


def _grid_sample_op(nd: int):
    return defop(
        f"grid_sampler_{nd}d",
        _grid_sample_fwd,
        {
            "input": lambda g, grid, input_shape, mode, padding_mode, align_corners: (
                _grid_sample_input_grad(g, grid, input_shape, mode, padding_mode, align_corners)
            ),
            "grid": lambda g, input, grid, mode, padding_mode, align_corners: (
                _grid_sample_grid_grad(g, input, grid, mode, padding_mode, align_corners)
            ),
        },
        node=f"GridSampler{nd}DBackward0",
    )


GRID_SAMPLER = {nd: _grid_sample_op(nd) for nd in (2, 3)}


def _base_grid(sizes, align_corners: bool, dtype):
    """(*sizes, nd + 1): each position's normalized coordinates, x first, then a 1."""
    axes = []
    for size in sizes:
        if size <= 1:
            axes.append(np.zeros(max(size, 0)))
            continue
        line = np.linspace(-1.0, 1.0, size)
        axes.append(line if align_corners else line * (size - 1) / size)
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.stack(list(mesh[::-1]) + [np.ones(sizes)], -1).astype(dtype)


def _affine_grid_fwd(xp, theta, *, size, align_corners):
    dtype = theta.dtype
    if dtype.itemsize < 4:  # float16/bfloat16: PyTorch's bmm, float32 sums rounded once
        theta = theta.astype(np.float32)
    base = xp.asarray(_base_grid(size[2:], align_corners, theta.dtype))
    flat = base.reshape(-1, base.shape[-1])
    grid = xp.matmul(flat, theta.transpose(0, 2, 1))  # (N, P, nd)
    grid = grid.reshape((theta.shape[0],) + tuple(size[2:]) + (theta.shape[1],))
    return grid.astype(dtype, copy=False)


def _affine_grid_theta_grad(g, theta_shape, size, align_corners):
    base = _base_grid(size[2:], align_corners, g._data.dtype)
    base = Tensor._wrap(namespace(g._data).asarray(base))
    flat_base = base.reshape(-1, base.shape[-1])
    flat_g = g.reshape(theta_shape[0], -1, theta_shape[1])
    return flat_g.transpose(1, 2).matmul(flat_base)


AFFINE_GRID = defop(
    "affine_grid_generator",
    _affine_grid_fwd,
    {
        "theta": lambda g, theta_shape, size, align_corners: _affine_grid_theta_grad(
            g, theta_shape, size, align_corners
        )
    },
    node="AffineGridGeneratorBackward0",
)


_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Matches `torch.nn.functional.grid_sample`: bilinear, nearest and (4-D input) bicubic."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    _check_grid_sampler(input, grid, mode)
    nd = input._data.ndim - 2
    attrs = {"mode": mode, "padding_mode": padding_mode, "align_corners": bool(align_corners)}
    return apply(GRID_SAMPLER[nd], (input, grid), attrs)


def _check_grid_sampler(input, grid, mode: str) -> None:
    # PyTorch's grid_sampler checks, in its order (the kernel checks the dtypes last)
    shape, grid_shape = list(input._data.shape), list(grid._data.shape)
    if len(shape) not in (4, 5) or len(grid_shape) != len(shape) or shape[0] != grid_shape[0]:
        raise RuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {shape} and grid with sizes {grid_shape}"
        )
    nd = len(shape) - 2
    if grid_shape[-1] != nd:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {nd} in last dimension, but got grid "
            f"with sizes {grid_shape}"
        )
    if mode == "bicubic" and nd != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype != grid.dtype:
        raise RuntimeError(
            f"expected scalar type {input.dtype._legacy} but found {grid.dtype._legacy}"
        )


def affine_grid(theta, size, align_corners=None):
    """Matches `torch.nn.functional.affine_grid` (AffineGridGeneratorBackward0)."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    shown = size
    size = tuple(int(s) for s in size)
    shape = tuple(theta.shape)
    if len(size) in (4, 5):
        nd = len(size) - 2
        if theta.dim() != 3 or shape[-2:] != (nd, nd + 1):
            kind = f"Nx{nd}x{nd + 1}"
            raise ValueError(
                f"Expected a batch of {nd}D affine matrices of shape {kind} for size "
                f"{shown}. Got torch.Size({list(shape)})."
            )
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {shown}."
        )
    if align_corners and min(size[2:]) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {shown}")
    if shape[0] != size[0]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{size[0]}, {nd + 1}] but got: [{shape[0]}, {nd + 1}]."
        )
    return apply(AFFINE_GRID, (theta,), {"size": size, "align_corners": bool(align_corners)})


__all__ = ["affine_grid", "grid_sample"]
