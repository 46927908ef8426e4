"""Upsampling (`F.interpolate`): nearest and nearest-exact (1-d to 3-d), linear, bilinear,
trilinear and bicubic, antialiased bilinear, bicubic and lanczos, and area (adaptive pooling).

Each mode is a separable linear map: along each spatial dim every output is a weighted sum of
a few input pixels, its taps (one for the nearest modes, two for the linear ones, four for
bicubic, a window stretched by the scale when an antialiased mode shrinks). The forward sums
those taps; the backward sums the transposed map's over the gradient (a row of its own, as
PyTorch's upsample_*_backward), whose backward is the forward map again, so gradients of any
order are exact.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from ...runtime.memory_format import channels_last, channels_last_3d, is_contiguous_as
from ...runtime.threads import get_num_threads
from ..table.argument_errors import invalid_combination, type_name
from ..table.arguments import is_int
from ..table.record import Constant, apply
from ..table.registry import defop
from .pool_adaptive import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

# Weights are computed with PyTorch's formulas step by step, in its "opmath" type (float32
# for float32 and the halves, float64 for float64), and stored as its kernel stores them
# (`store`: in the input's dtype, but for its channels-last kernels); the taps are summed in
# its order. Its AVX2 build fuses multiply-adds (an FMA rounds once where NumPy rounds twice),
# so float32 and float64 results can differ from PyTorch's by an ulp or a few.


def _area_scale(in_size, out_size, scale, align_corners, dtype):
    # PyTorch's area_pixel_compute_scale: input pixels per output pixel, from the corner
    # pixels' centres when aligned, else 1 / scale_factor when one was given, else the sizes
    if align_corners:
        return dtype.type(in_size - 1) / dtype.type(out_size - 1) if out_size > 1 else dtype.type(0)
    return dtype.type(1.0 / scale) if scale else dtype.type(in_size) / dtype.type(out_size)


def _source_index(s, out_size, align_corners, cubic, dtype):
    dst = np.arange(out_size, dtype=dtype)
    if align_corners:
        return s * dst
    src = s * (dst + dtype.type(0.5)) - dtype.type(0.5)
    # bicubic keeps a negative source coordinate: its taps left of 0 clamp to pixel 0
    return src if cubic else np.maximum(src, dtype.type(0))


def _floor_and_fraction(src, in_size):
    # PyTorch's guard_index_and_lambda, which floors in float32 (floorf) even for doubles
    index = np.minimum(np.floor(src.astype(np.float32)).astype(np.int64), in_size - 1)
    return index, np.clip(src - index.astype(src.dtype), 0, 1).astype(src.dtype)


def _taps(in_size, columns, weights, dtype):
    """One dim's map as gathers, tap by tap: output o is the sum over k of
    x[index[o, k]] * weight[o, k] (index `in_size` reads a zero), in PyTorch's order of the
    taps, zero weights included (0 * inf is NaN there too); then the same of its transpose,
    each input's taps in the order PyTorch's backward accumulates them, output by output."""
    out_size = len(columns[0])
    index = np.stack(columns, 1)
    weight = np.stack([np.broadcast_to(w, (out_size,)) for w in weights], 1).astype(dtype)
    rows = np.repeat(np.arange(out_size), index.shape[1])
    used = index.ravel() < in_size
    cols, rows, values = index.ravel()[used], rows[used], weight.ravel()[used]
    order = np.lexsort((rows, cols))  # stable: a column's taps by output, then tap
    cols, rows, values = cols[order], rows[order], values[order]
    counts = np.bincount(cols, minlength=in_size)
    slot = np.arange(len(cols)) - (np.cumsum(counts) - counts)[cols]
    t_index = np.full((in_size, max(counts.max(), 1)), out_size)
    t_weight = np.zeros(t_index.shape, dtype)
    t_index[cols, slot], t_weight[cols, slot] = rows, values
    return index, weight, t_index, t_weight


def _stored(weight, store):
    return weight.astype(store).astype(weight.dtype)


def _nearest(in_size, out_size, scale, align_corners, dtype, store, exact=False):
    s = _area_scale(in_size, out_size, scale, False, dtype)
    dst = np.arange(out_size, dtype=dtype)
    src = np.floor((dst + dtype.type(0.5)) * s if exact else dst * s).astype(np.int64)
    return _taps(in_size, [np.minimum(src, in_size - 1)], [dtype.type(1)], dtype)


def _linear(in_size, out_size, scale, align_corners, dtype, store):
    if in_size == out_size:  # PyTorch copies (times 1, plus itself times 0), whatever the scale
        same = np.arange(in_size)
        return _taps(in_size, [same, same], [dtype.type(1), dtype.type(0)], dtype)
    s = _area_scale(in_size, out_size, scale, align_corners, dtype)
    lo, lam = _floor_and_fraction(_source_index(s, out_size, align_corners, False, dtype), in_size)
    hi = np.where(lo < in_size - 1, lo + 1, lo)
    lam = _stored(lam, store)
    return _taps(in_size, [lo, hi], [_stored(dtype.type(1) - lam, store), lam], dtype)


def _keys(x, a):
    # Keys' cubic convolution kernel at distance x >= 0, as PyTorch evaluates it
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0)).astype(x.dtype)


def _bicubic(in_size, out_size, scale, align_corners, dtype, store):
    s = _area_scale(in_size, out_size, scale, align_corners, dtype)
    src = _source_index(s, out_size, align_corners, True, dtype)
    index, t = _floor_and_fraction(src, in_size)
    a, one = dtype.type(-0.75), dtype.type(1)
    weights = [_keys(t + one, a), _keys(t, a), _keys(one - t, a), _keys((one - t) + one, a)]
    columns = [np.clip(index + k - 1, 0, in_size - 1) for k in range(4)]
    return _taps(in_size, columns, [_stored(w, store) for w in weights], dtype)


def _triangle(x):
    return np.maximum(x.dtype.type(1) - x, 0).astype(x.dtype)


def _cubic(x):
    return _keys(x, x.dtype.type(-0.5))  # Keys' (and PIL's) a = -0.5 when antialiased


def _lanczos(x):
    # Lanczos-3: sinc(x) sinc(x / 3) within 3 pixels, the second factor in double as PyTorch's
    def sinc(v):
        pv = v * v.dtype.type(math.pi)
        return np.where(v == 0, 1, np.sin(pv) / np.where(v == 0, 1, pv))

    return np.where(x < 3, sinc(x) * sinc(x.astype(np.float64) / 3.0), 0).astype(x.dtype)


def _antialiased(in_size, out_size, scale, align_corners, dtype, store, taps, kernel):
    # PyTorch's (and PIL's) antialiased resampling: the kernel is stretched by the scale when
    # shrinking, so every input pixel counts, and each output's weights are normalized to sum
    # to 1 over the pixels of its window [xmin, xmin + xsize)
    if in_size == out_size:  # PyTorch skips such a dim
        return _taps(in_size, [np.arange(in_size)], [dtype.type(1)], dtype)
    s = _area_scale(in_size, out_size, scale, align_corners, dtype)
    support = dtype.type(taps / 2 * s if s >= 1 else taps / 2)
    width = math.ceil(support) * 2 + 1
    inverse = dtype.type(1.0 / s if s >= 1 else 1.0)
    # (the mixed float and double steps of PyTorch's _compute_indices_min_size_weights_aa)
    center = (np.float64(s) * (np.arange(out_size) + 0.5)).astype(dtype)
    xmin = np.maximum(((center - support).astype(np.float64) + 0.5).astype(np.int64), 0)
    xmax = ((center + support).astype(np.float64) + 0.5).astype(np.int64)
    xsize = np.clip(np.minimum(xmax, in_size) - xmin, 0, width)
    j = np.arange(width)
    offset = (xmin[:, None] + j).astype(dtype) - center[:, None]
    x = ((offset.astype(np.float64) + 0.5) * np.float64(inverse)).astype(dtype)
    weights = np.where(j < xsize[:, None], kernel(np.abs(x)), dtype.type(0))
    total = weights[:, 0]
    for k in range(1, width):  # in order, as PyTorch sums them
        total = total + weights[:, k]
    weights = weights / np.where(total != 0, total, 1)[:, None]  # (no sum, left as they are)
    columns = np.where(j < xsize[:, None], xmin[:, None] + j, in_size)  # (a zero beyond xsize)
    return _taps(in_size, list(columns.T), list(weights.astype(dtype).T), dtype)


# the taps of one dim, by mode: (in_size, out_size, scale, align_corners, dtype, store)
_WEIGHTS = {
    "nearest": _nearest,
    "nearest-exact": partial(_nearest, exact=True),
    "linear": _linear,
    "bilinear": _linear,
    "trilinear": _linear,
    "bicubic": _bicubic,
    "bilinear-aa": partial(_antialiased, taps=2, kernel=_triangle),
    "bicubic-aa": partial(_antialiased, taps=4, kernel=_cubic),
    "lanczos-aa": partial(_antialiased, taps=6, kernel=_lanczos),
}


def _apply_maps(xp, x, maps, transpose):
    # maps[i] acts on spatial dim i (the trailing dims); the last dim first, as PyTorch's
    # kernels do. float16, bfloat16 (and uint8 for nearest) run in float32, rounded once.
    work = np.float64 if x.dtype == np.float64 else np.float32
    y = x.astype(work, copy=False)
    for i in reversed(range(len(maps))):
        index, weight = maps[i][2:] if transpose else maps[i][:2]
        y = _gather(xp, y, y.ndim - len(maps) + i, index, weight)
    return xp.ascontiguousarray(y.astype(x.dtype, copy=False))


def _gather(xp, y, axis, index, weight):
    if index.max() == y.shape[axis]:  # a tap past the end reads a zero
        y = xp.pad(y, [(0, int(d == axis)) for d in range(y.ndim)])
    shape = [len(index) if d == axis else 1 for d in range(y.ndim)]
    out = None
    for k in range(index.shape[1]):  # in order, as PyTorch sums them
        term = xp.take(y, xp.asarray(index[:, k]), axis) * xp.asarray(weight[:, k]).reshape(shape)
        out = term if out is None else out + term
    return out


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


# (row name, node name) by (mode, spatial dims); the row is named for PyTorch's kernel
_KERNELS = {
    ("nearest", 1): ("upsample_nearest1d", "UpsampleNearest1DBackward0"),
    ("nearest", 2): ("upsample_nearest2d", "UpsampleNearest2DBackward0"),
    ("nearest", 3): ("upsample_nearest3d", "UpsampleNearest3DBackward0"),
    ("nearest-exact", 1): ("upsample_nearest_exact1d", "UpsampleNearestExact1DBackward0"),
    ("nearest-exact", 2): ("upsample_nearest_exact2d", "UpsampleNearestExact2DBackward0"),
    ("nearest-exact", 3): ("upsample_nearest_exact3d", "UpsampleNearestExact3DBackward0"),
    ("linear", 1): ("upsample_linear1d", "UpsampleLinear1DBackward0"),
    ("bilinear", 2): ("upsample_bilinear2d", "UpsampleBilinear2DBackward0"),
    ("trilinear", 3): ("upsample_trilinear3d", "UpsampleTrilinear3DBackward0"),
    ("bicubic", 2): ("upsample_bicubic2d", "UpsampleBicubic2DBackward0"),
    ("bilinear-aa", 2): ("upsample_bilinear2d_aa", "UpsampleBilinear2DAaBackward0"),
    ("bicubic-aa", 2): ("upsample_bicubic2d_aa", "UpsampleBicubic2DAaBackward0"),
    ("lanczos-aa", 2): ("upsample_lanczos2d_aa", "UpsampleLanczos2DAaBackward0"),
}
_ROWS = {key: _row(name, node) for key, (name, node) in _KERNELS.items()}
_NEEDS = {"linear": 3, "bilinear": 4, "trilinear": 5}


def _kernel(kind, spatial):
    # PyTorch's name of the kernel, in its errors: nearest-exact's and antialiased ones private
    name = _KERNELS[kind, spatial][0]
    return "_" + name if "exact" in name or name.endswith("_aa") else name


def _per_dim(value, in_sizes: tuple, name: str) -> list:
    if not isinstance(value, (list, tuple)):
        return [value] * len(in_sizes)
    if len(value) != len(in_sizes):
        output = name == "output"
        what = "output size of" if output else "scale_factor of shape"
        form = "output size in (o1, o2, ...,oK)" if output else "scale_factor in (s1, s2, ...,sK)"
        raise ValueError(
            f"Input and {name} must have the same number of spatial dimensions, but got input "
            f"with spatial dimensions of {list(in_sizes)} and {what} {value}. Please provide "
            f"input tensor in (N, C, d1, d2, ...,dK) format and {form} format."
        )
    if name == "output" and not all(is_int(s) for s in value):
        raise TypeError(
            "expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
            f"int], but got size with types {[type(s) for s in value]}"
        )
    return list(value)


def _python_sizes(in_sizes, size, scale_factor, mode, recompute):
    """PyTorch's Python checks of size and scale_factor, in its order: (sizes, scales), one None."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if size is not None:
        sizes = _per_dim(size, in_sizes, "output")
        if recompute:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        return sizes, None
    scales = _per_dim(scale_factor, in_sizes, "scale_factor")
    if recompute or mode == "area":  # the size is computed here; the kernel gets no scale
        return [int(n * float(s)) for n, s in zip(in_sizes, scales)], None
    return None, [float(s) for s in scales]


def _kernel_sizes(input, sizes, scales, kind, align_corners) -> tuple:
    """The upsample kernel's checks, in its order: argument types, sizes, then the input."""
    shape = input._data.shape
    if sizes is None:
        if any(s != s for s in scales):  # NaN: the size cannot be an int64
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        sizes = [math.floor(n * s) for n, s in zip(shape[2:], scales)]
    elif not all(is_int(s) for s in sizes):
        corners = () if kind.startswith("nearest") else (bool(align_corners),)
        raise invalid_combination(_kernel(kind, len(sizes)), (input, sizes, *corners, None))
    sizes = [int(s) for s in sizes]
    if min(shape[2:]) <= 0 or min(sizes) <= 0:
        names = "DHW"[3 - len(sizes) :]
        have = ", ".join(f"{c}: {n}" for c, n in zip(names, shape[2:]))
        got = ", ".join(f"{c}: {n}" for c, n in zip(names, sizes))
        joint = " and output" if len(sizes) == 1 else " output"
        raise RuntimeError(
            "Input and output sizes should be greater than 0, but got "
            f"input ({have}){joint} ({got})"
        )
    if shape[1] == 0:
        raise RuntimeError(
            f"Non-empty {len(shape)}D data tensor expected but got a tensor with sizes "
            f"{list(shape)}"
        )
    return sizes, scales or [None] * len(sizes)


def _check_dtype(input, kind, channels_last_kernel) -> None:
    dtype = input.dtype
    if dtype.is_floating_point and (not kind.endswith("-aa") or dtype.itemsize >= 4):
        return
    uint8 = input._data.dtype == np.uint8
    if uint8 and kind.startswith("nearest"):
        return  # copies: exact in any type
    if uint8 and kind.startswith(("bi", "lanczos")):  # PyTorch's integer arithmetic of PIL's
        raise NotImplementedError(
            f"dyngrad does not implement interpolate(mode='{kind.removesuffix('-aa')}'"
            f"{', antialias=True' if kind.endswith('-aa') else ''}) for uint8 inputs yet"
        )
    name = "nearest" if kind.startswith("nearest") else kind
    if kind.endswith("-aa"):
        kernel = "compute_index_ranges_weights"
    elif kind == "bicubic":
        kernel = "compute_indices_weights_cubic"
    elif channels_last_kernel:
        kernel = f"upsample_{name}{input._data.ndim - 2}d_channels_last"
    else:
        kernel = f"compute_indices_weights_{'linear' if 'linear' in kind else 'nearest'}"
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype._legacy}'")


def _channels_last_kernel(input, sizes, kind) -> bool:
    """Whether PyTorch runs its channels-last kernel, which keeps the weights in float32 and
    whose name its dtype error gives (_use_vectorized_kernel_cond_2d / _3d)."""
    x = input._data
    if kind not in ("nearest", "nearest-exact", "bilinear", "trilinear") or x.ndim == 3:
        return False
    if is_contiguous_as(x, channels_last if x.ndim == 4 else channels_last_3d) and x.shape[1] > 3:
        return True
    if x.ndim == 5:
        return False
    return sum(sizes) <= 128 or (kind == "bilinear" and get_num_threads() == 1 and x.shape[1] == 3)


def _area(input, sizes, spatial):
    if not all(is_int(s) for s in sizes):
        raise TypeError(
            f"adaptive_avg_pool{spatial}d(): argument 'output_size' (position 2) must be tuple "
            f"of ints, but found element of type {type_name(sizes[0])} at pos 0"
        )
    pool = (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[spatial - 1]
    return pool(input, [int(s) for s in sizes])


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    """Matches `torch.nn.functional.interpolate`. Where dyngrad differs: uint8 inputs are taken
    by the nearest modes only; a channels-last input gives a contiguous output; and where a dim
    keeps its size under a scale_factor, PyTorch's bicubic and antialiased backwards are not
    the adjoints of their forwards (one of the two copies that dim, the other interpolates it),
    dyngrad's gradients are."""
    if align_corners is not None and mode in ("nearest", "area", "nearest-exact"):
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: "
            "linear | bilinear | bicubic | trilinear"
        )
    ndim = input._data.ndim
    sizes, scales = _python_sizes(
        input._data.shape[2:], size, scale_factor, mode, recompute_scale_factor
    )
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input"
        )
    spatial = ndim - 2
    if mode == "area" and ndim in (3, 4, 5):
        return _area(input, sizes, spatial)
    if mode == "lanczos" and ndim == 4 and align_corners:
        raise ValueError("Lanczos mode does not support align_corners=True")
    if mode == "lanczos" and ndim == 4 and not antialias:
        raise ValueError("Lanczos mode requires antialias=True")
    kind = mode + "-aa" if antialias else mode
    if (kind, spatial) not in _KERNELS:
        if mode in _NEEDS and ndim in (3, 4, 5):
            raise NotImplementedError(
                f"Got {ndim}D input, but {mode} mode needs {_NEEDS[mode]}D input"
            )
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {ndim}D) for the "
            f"modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
            f"nearest-exact (got {mode})"
        )
    sizes, scales = _kernel_sizes(input, sizes, scales, kind, align_corners)
    channels_last_kernel = _channels_last_kernel(input, sizes, kind)
    _check_dtype(input, kind, channels_last_kernel)
    dtype = np.dtype(np.float64 if input._data.dtype == np.float64 else np.float32)
    low = input.dtype.is_floating_point and input.dtype.itemsize < 4 and not channels_last_kernel
    store = input._data.dtype if low else dtype
    weights = _WEIGHTS[kind]
    # (from sizes and scales alone: a compiled call's replay reuses them, See `Constant`)
    maps = Constant(
        weights(n, o, s, bool(align_corners), dtype, store)
        for n, o, s in zip(input._data.shape[2:], sizes, scales)
    )
    return apply(_ROWS[kind, spatial], (input,), {"maps": maps})
