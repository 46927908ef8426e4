"""Upsampling (`F.interpolate`): nearest, nearest-exact, linear and bilinear, 1-d and 2-d.

Each mode is a separable linear map: along each spatial dim the output is A @ input with an
(out, in) matrix of interpolation weights (one 1 per row for the nearest modes, two weights
for the linear ones). The forward is those products; the backward applies the transposed
matrices to the gradient (a row of its own, as PyTorch's upsample_*_backward), whose backward
is the forward map again, so gradients of any order are exact.
"""

from __future__ import annotations

import math

import numpy as np

from ..table.argument_errors import invalid_combination
from ..table.arguments import is_int
from ..table.record import Constant, apply
from ..table.registry import defop


def _source_scale(in_size: int, out_size: int, scale, dtype):
    # PyTorch maps output to input coordinates by 1 / scale_factor when one was given, else
    # by the ratio of the sizes, in the input's float type (float32 for float32 and halves)
    return dtype.type(1.0 / scale if scale else in_size / out_size)


def _nearest(in_size, out_size, scale, exact, dtype):
    s = _source_scale(in_size, out_size, scale, dtype)
    dst = np.arange(out_size, dtype=dtype)
    src = np.floor((dst + dtype.type(0.5)) * s if exact else dst * s).astype(np.int64)
    weights = np.zeros((out_size, in_size), dtype)
    weights[np.arange(out_size), np.minimum(src, in_size - 1)] = 1
    return weights


def _linear(in_size, out_size, scale, align_corners, dtype):
    # the source coordinate and the two weights as PyTorch computes them, in `dtype`
    dst = np.arange(out_size, dtype=dtype)
    if align_corners:
        src = dst * dtype.type((in_size - 1) / (out_size - 1) if out_size > 1 else 0.0)
    else:
        s = _source_scale(in_size, out_size, scale, dtype)
        src = np.maximum(s * (dst + dtype.type(0.5)) - dtype.type(0.5), dtype.type(0))
    lo = np.minimum(src.astype(np.int64), in_size - 1)
    hi = np.minimum(lo + 1, in_size - 1)
    lam = (src - lo.astype(dtype)).astype(dtype)
    weights = np.zeros((out_size, in_size), dtype)
    rows = np.arange(out_size)
    np.add.at(weights, (rows, lo), dtype.type(1) - lam)
    np.add.at(weights, (rows, hi), lam)
    return weights


def _apply_maps(xp, x, maps, transpose):
    # maps[i] acts on spatial dim i (the trailing dims); the last dim first, as PyTorch's
    # kernels combine a row's two neighbours before the two rows
    for i in reversed(range(len(maps))):
        a = maps[i]
        a = (a.T if transpose else a).astype(x.dtype, copy=False)
        axis = x.ndim - len(maps) + i
        x = xp.moveaxis(xp.matmul(a, xp.moveaxis(x, axis, -2)), -2, axis)
    return xp.ascontiguousarray(x)


def _row(name, node):
    forward = defop(
        name,
        lambda xp, x, *, maps: _apply_maps(xp, x, maps, False),
        {"x": lambda g, maps: apply(adjoint, (g,), {"maps": maps})},
        node=node,
    )
    adjoint = defop(
        name + "_backward",
        lambda xp, grad, *, maps: _apply_maps(xp, grad, maps, True),
        {"grad": lambda g, maps: apply(forward, (g,), {"maps": maps})},
        node=node.replace("Backward0", "BackwardBackward0"),
    )
    return forward


_ROWS = {
    ("nearest", 1): _row("upsample_nearest1d", "UpsampleNearest1DBackward0"),
    ("nearest", 2): _row("upsample_nearest2d", "UpsampleNearest2DBackward0"),
    ("nearest-exact", 1): _row("upsample_nearest_exact1d", "UpsampleNearestExact1DBackward0"),
    ("nearest-exact", 2): _row("upsample_nearest_exact2d", "UpsampleNearestExact2DBackward0"),
    ("linear", 1): _row("upsample_linear1d", "UpsampleLinear1DBackward0"),
    ("bilinear", 2): _row("upsample_bilinear2d", "UpsampleBilinear2DBackward0"),
}
_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
_LINEAR_MODES = ("linear", "bilinear", "bicubic", "trilinear")
_NEEDS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def _per_dim(value, in_sizes: tuple, name: str) -> list:
    if isinstance(value, (list, tuple)):
        if len(value) != len(in_sizes):
            what = "output size of" if name == "output" else "scale_factor of shape"
            form = (
                "output size in (o1, o2, ...,oK)"
                if name == "output"
                else "scale_factor in (s1, s2, ...,sK)"
            )
            raise ValueError(
                f"Input and {name} must have the same number of spatial "
                f"dimensions, but got input with spatial dimensions of "
                f"{list(in_sizes)} and {what} {value}. Please provide input tensor "
                f"in (N, C, d1, d2, ...,dK) format and {form} format."
            )
        return list(value)
    return [value] * len(in_sizes)


# the kernel names PyTorch's errors give, by (mode, spatial dims)
_KERNELS = {
    ("nearest", 1): "upsample_nearest1d",
    ("nearest", 2): "upsample_nearest2d",
    ("nearest-exact", 1): "_upsample_nearest_exact1d",
    ("nearest-exact", 2): "_upsample_nearest_exact2d",
    ("linear", 1): "upsample_linear1d",
    ("bilinear", 2): "upsample_bilinear2d",
}
_INT_KERNELS = {1: "compute_indices_weights_{}", 2: "upsample_{}2d_channels_last"}


def _output_sizes(input, size, scale_factor, mode) -> tuple:
    """PyTorch's Python checks of size and scale_factor, in its order, then the sizes."""
    in_sizes = input._data.shape[2:]
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if size is not None:
        sizes = _per_dim(size, in_sizes, "output")
        if not all(is_int(s) for s in sizes) and (mode, len(in_sizes)) in _KERNELS:
            raise invalid_combination(_KERNELS[mode, len(in_sizes)], (input, sizes, None))
        return [int(s) for s in sizes], [None] * len(in_sizes)
    scales = [float(s) for s in _per_dim(scale_factor, in_sizes, "scale_factor")]
    if any(s != s for s in scales):  # NaN: the size cannot be an int64
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return [int(math.floor(n * s)) for n, s in zip(in_sizes, scales)], scales


def _check_sizes(in_sizes, out_sizes) -> None:
    if min(in_sizes) > 0 and min(out_sizes) > 0:
        return
    names = "DHW"[3 - len(in_sizes) :]
    have = ", ".join(f"{c}: {n}" for c, n in zip(names, in_sizes))
    got = ", ".join(f"{c}: {n}" for c, n in zip(names, out_sizes))
    joint = " and output" if len(in_sizes) != 2 else " output"
    raise RuntimeError(
        f"Input and output sizes should be greater than 0, but got input ({have}){joint} ({got})"
    )


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    """Matches `torch.nn.functional.interpolate` for nearest, nearest-exact, linear and
    bilinear (bicubic, trilinear and area raise NotImplementedError)."""
    if align_corners is not None and mode in ("nearest", "area", "nearest-exact"):
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: "
            "linear | bilinear | bicubic | trilinear"
        )
    out_sizes, scales = _output_sizes(input, size, scale_factor, mode)
    ndim = input._data.ndim
    if mode not in _MODES or ndim not in (3, 4, 5):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {ndim}D) for the "
            f"modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
            f"nearest-exact (got {mode})"
        )
    if mode in _NEEDS and ndim != _NEEDS[mode]:
        raise NotImplementedError(f"Got {ndim}D input, but {mode} mode needs {_NEEDS[mode]}D input")
    spatial = ndim - 2
    in_sizes = input._data.shape[2:]
    _check_sizes(in_sizes, out_sizes)
    if scale_factor is not None and recompute_scale_factor:
        scales = [None] * spatial
    if not input.dtype.is_floating_point and mode == "bicubic":
        raise NotImplementedError(
            f"\"compute_indices_weights_cubic\" not implemented for '{input.dtype._legacy}'"
        )
    if not input.dtype.is_floating_point and spatial in _INT_KERNELS:
        kind = {"bilinear": "bilinear", "linear": "linear"}.get(mode, "nearest")
        raise NotImplementedError(
            f"\"{_INT_KERNELS[spatial].format(kind)}\" not implemented for '{input.dtype._legacy}'"
        )
    row = _ROWS.get((mode, spatial))
    if row is None or antialias:
        raise NotImplementedError(
            f"dyngrad does not implement interpolate(mode='{mode}'"
            f"{', antialias=True' if antialias else ''}) for "
            f"{spatial}-d inputs yet"
        )
    dtype = input._data.dtype if input._data.dtype == np.float64 else np.dtype(np.float32)
    # (from sizes and scales alone: a compiled call's replay reuses them, See `Constant`)
    if mode in ("nearest", "nearest-exact"):
        maps = Constant(
            _nearest(n, o, s, mode == "nearest-exact", dtype)
            for n, o, s in zip(in_sizes, out_sizes, scales)
        )
    else:
        maps = Constant(
            _linear(n, o, s, bool(align_corners), dtype)
            for n, o, s in zip(in_sizes, out_sizes, scales)
        )
    return apply(row, (input,), {"maps": maps})
