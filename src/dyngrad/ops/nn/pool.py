"""Pooling: max (with indices), average and adaptive average, over 2 spatial dims.

1-d pooling runs the 2-d op on an unsqueezed input, as PyTorch does (SqueezeBackward1 on top).
Each backward is itself a linear op whose adjoint is the forward map (a gather for max), so
double backward works.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..arrays.im2col import scratch, windows
from ..table.record import apply
from ..table.registry import defop


def pool_out_size(size, k, s, p, d, ceil_mode) -> int:
    """PyTorch's pooling output length; with ceil_mode the last window must start inside."""
    span = d * (k - 1) + 1
    out = (size + 2 * p - span + ((s - 1) if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _padded_windows(xp, x, kernel, stride, padding, dilation, out, fill):
    # pad right enough for ceil_mode's partial last window, then view the windows
    pads = []
    for size, k, s, p, d, o in zip(x.shape[2:], kernel, stride, padding, dilation, out):
        need = (o - 1) * s + d * (k - 1) + 1
        pads.append((p, max(need - size - p, 0)))
    x = xp.pad(x, ((0, 0), (0, 0)) + tuple(pads), constant_values=fill)
    return windows(xp, x, kernel, stride, ((0, 0),) * len(kernel), dilation, out)


def _planes(x, nd: int):
    # channels pool independently: (..., *spatial) as (planes, 1, *spatial)
    return x.reshape((-1, 1) + x.shape[x.ndim - nd :]), x.shape[: x.ndim - nd]


class Window(NamedTuple):
    """A pooling window's geometry, one attr: kernel, stride, padding, dilation, out_size."""

    kernel: tuple
    stride: tuple
    padding: tuple
    dilation: tuple
    out_size: tuple


class AvgOptions(NamedTuple):
    count_include_pad: bool
    divisor_override: int | None


def _tiled(window, shape) -> bool:
    """Whether the windows tile the input: kernel == stride, no padding, no dilation."""
    kernel, stride, padding, dilation, out = window
    return (
        stride == kernel
        and not any(padding)
        and all(d == 1 for d in dilation)
        and out == tuple(s // k for s, k in zip(shape[-2:], kernel))
    )


def _tiled_max_pool(xp, x, kernel, out):
    """Max pooling over non-overlapping windows, on a contiguous copy of the kernel taps.

    One transposing copy of the input makes every later pass contiguous: passes over the
    strided taps themselves cost more than that copy.
    """
    (kh, kw), (oh, ow), width = kernel, out, x.shape[-1]
    lead = x.ndim - 2
    tiles = x[..., : oh * kh, : ow * kw].reshape(x.shape[:lead] + (oh, kh, ow, kw))
    taps = scratch(xp, (kh, kw) + x.shape[:lead] + (oh, ow), x.dtype)
    taps[...] = tiles.transpose((lead + 1, lead + 3) + tuple(range(lead)) + (lead, lead + 2))
    taps = taps.reshape((kh * kw,) + taps.shape[2:])
    # NumPy's maximum returns its second argument on ties: folding from the last tap keeps the
    # first maximum (and its sign of zero), as PyTorch does. NaN propagates.
    values = taps[-1].copy()
    for tap in taps[-2::-1]:
        xp.maximum(values, tap, out=values)
    # count the taps before the first one equal to the maximum (small integers: no
    # activation-sized int64 temporaries), then look up that tap's offset
    missed = values != taps[0]
    before = missed.astype(xp.uint8 if len(taps) <= 256 else xp.int64)
    for tap in taps[1:-1]:
        missed &= values != tap
        before += missed
    offsets = (xp.arange(kh)[:, None] * width + xp.arange(kw)).ravel()
    corner = (xp.arange(oh) * (kh * width))[:, None] + xp.arange(ow) * kw
    index = xp.take(offsets, before)
    index += corner
    if values.dtype.kind == "f" and xp.isnan(values).any():
        # PyTorch's strict `>` with a NaN test lets the last NaN of a window win
        for tap, offset in zip(taps, offsets.tolist()):
            xp.copyto(index, corner + offset, where=xp.isnan(tap))
    return values, index


def _max_pool_fwd(xp, x, *, window):
    kernel, stride, padding, dilation, out = window
    if _tiled(window, x.shape):
        return _tiled_max_pool(xp, x, kernel, out)
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    x, lead = _planes(x, len(kernel))
    win = _padded_windows(xp, x, kernel, stride, padding, dilation, out, fill)
    # one pass per kernel tap over output-sized views: faster than an argmax over a copied
    # window axis. Strict > keeps the first maximum; a NaN always wins, as in PyTorch.
    taps = list(np.ndindex(*kernel))
    every = (slice(None),) * (2 + len(out))
    values = win[every + taps[0]].copy()
    arg = xp.zeros(values.shape, dtype=xp.int64)
    for t, tap in enumerate(taps[1:], 1):
        candidate = win[every + tap]
        better = candidate > values
        if values.dtype.kind == "f":
            better |= xp.isnan(candidate)
        xp.copyto(values, candidate, where=better)
        arg[better] = t
    # the flat index into the (unpadded) input plane of each chosen element
    rows = xp.unravel_index(arg, kernel)
    index = 0
    for i, (size, s, p, d) in enumerate(zip(x.shape[2:], stride, padding, dilation)):
        pos = xp.arange(out[i]).reshape((-1,) + (1,) * (len(out) - 1 - i)) * s - p
        index = index * size + pos + rows[i] * d
    return values.reshape(lead + out), index.reshape(lead + out)


def _max_pool_backward_fwd(xp, grad, indices, *, x_shape, distinct=False):
    nd = 2
    planes = int(np.prod(x_shape[:-nd]))
    plane = int(np.prod(x_shape[-nd:]))
    offsets = xp.arange(planes).reshape((-1,) + (1,) * nd) * plane
    flat_index = (indices.reshape((planes,) + indices.shape[-nd:]) + offsets).ravel()
    if distinct:  # windows that do not overlap pick each input element at most once
        flat = xp.zeros(planes * plane, dtype=grad.dtype)
        flat[flat_index] = grad.ravel()
        return flat.reshape(x_shape)
    flat = xp.bincount(flat_index, weights=grad.ravel(), minlength=planes * plane)
    return flat.astype(grad.dtype).reshape(x_shape)


def _gather_fwd(xp, grad, indices):
    flat = grad.reshape(indices.shape[:-2] + (-1,))
    picked = xp.take_along_axis(flat, indices.reshape(indices.shape[:-2] + (-1,)), axis=-1)
    return picked.reshape(indices.shape)


# max pooling's backward scatters into the chosen positions; its adjoint gathers them back
MAX_POOL_BACKWARD = defop(
    "max_pool2d_backward",
    _max_pool_backward_fwd,
    {"grad": lambda g, indices: apply(MAX_POOL_GATHER, (g, indices))},
    node="MaxPool2DWithIndicesBackwardBackward0",
)
MAX_POOL_GATHER = defop(
    "max_pool2d_gather",
    _gather_fwd,
    {"grad": lambda g, indices, grad_shape: max_pool_backward(g, indices, grad_shape)},
    node="GatherBackward0",
)
MAX_POOL = defop(
    "max_pool2d_with_indices",
    _max_pool_fwd,
    {
        "x": lambda g, out, x_shape, window: max_pool_backward(
            g[0], out[1], x_shape, _tiled(window, x_shape)
        )
    },
    node="MaxPool2DWithIndicesBackward0",
    outputs=2,
    differentiable=(0,),
)


def max_pool_backward(g, indices, x_shape, distinct=False):
    return apply(MAX_POOL_BACKWARD, (g, indices), {"x_shape": x_shape, "distinct": distinct})


def _divisor(x_shape, window, options):
    if options.divisor_override:
        return options.divisor_override
    kernel, stride, padding, _, out = window
    div = np.ones((), np.int64)
    for size, k, s, p, o in zip(x_shape[-len(kernel) :], kernel, stride, padding, out):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, size + p)
        if options.count_include_pad:
            n = end - start
        else:
            n = np.minimum(end, size) - np.maximum(start, 0)
        div = div[..., None] * n
    return div


def _avg_pool_fwd(xp, x, *, window, options):
    kernel, stride, padding, dilation, out = window
    x, lead = _planes(x, len(kernel))
    win = _padded_windows(xp, x, kernel, stride, padding, dilation, out, 0)
    total = win.sum(axis=tuple(range(-len(kernel), 0)))
    div = _divisor(x.shape, window, options)
    return (total / xp.asarray(div)).astype(x.dtype, copy=False).reshape(lead + out)


def _avg_pool_backward_fwd(xp, grad, *, x_shape, window, options):
    """Each output's gradient shared over its window: col2im of grad / divisor."""
    kernel, stride, padding, _, out = window
    nd = len(kernel)
    share = (grad / xp.asarray(_divisor(x_shape, window, options))).astype(grad.dtype)
    share = share.reshape((-1, 1) + share.shape[-nd:])
    spatial = x_shape[-nd:]
    padded = [
        max((o - 1) * s + k + p, size + 2 * p)
        for o, s, k, p, size in zip(out, stride, kernel, padding, spatial)
    ]
    result = xp.zeros((share.shape[0], 1) + tuple(padded), dtype=grad.dtype)
    every = (slice(None), slice(None))
    for tap in np.ndindex(*kernel):
        region = tuple(slice(k, k + s * (o - 1) + 1, s) for k, s, o in zip(tap, stride, out))
        result[every + region] += share
    crop = tuple(slice(p, p + size) for size, p in zip(spatial, padding))
    return result[every + crop].reshape(x_shape)


AVG_POOL_BACKWARD = defop(
    "avg_pool2d_backward",
    _avg_pool_backward_fwd,
    {"grad": lambda g, window, options: avg_pool(g, window, options)},
    node="AvgPool2DBackwardBackward0",
)
AVG_POOL = defop(
    "avg_pool2d",
    _avg_pool_fwd,
    {
        "x": lambda g, x_shape, window, options: apply(
            AVG_POOL_BACKWARD, (g,), {"x_shape": x_shape, "window": window, "options": options}
        )
    },
    node="AvgPool2DBackward0",
)


def avg_pool(x, window, options):
    return apply(AVG_POOL, (x,), {"window": window, "options": options})


def _adaptive_matrix(xp, size: int, out: int, dtype):
    """Row i averages input[floor(i*size/out) : ceil((i+1)*size/out)]."""
    m = np.zeros((out, size))
    for i in range(out):
        start, end = (i * size) // out, -((-(i + 1) * size) // out)
        m[i, start:end] = 1.0 / (end - start)
    return xp.asarray(m, dtype=dtype)


def _adaptive_fwd(xp, x, *, output_size):
    a = _adaptive_matrix(xp, x.shape[-2], output_size[0], x.dtype)
    b = _adaptive_matrix(xp, x.shape[-1], output_size[1], x.dtype)
    return xp.matmul(xp.matmul(a, x), b.T)


def _adaptive_backward_fwd(xp, grad, *, x_shape):
    a = _adaptive_matrix(xp, x_shape[-2], grad.shape[-2], grad.dtype)
    b = _adaptive_matrix(xp, x_shape[-1], grad.shape[-1], grad.dtype)
    return xp.matmul(xp.matmul(a.T, grad), b)


ADAPTIVE_AVG_POOL_BACKWARD = defop(
    "adaptive_avg_pool2d_backward",
    _adaptive_backward_fwd,
    {
        "grad": lambda g, grad_shape: apply(
            ADAPTIVE_AVG_POOL, (g,), {"output_size": tuple(grad_shape[-2:])}
        )
    },
    node="AdaptiveAvgPool2DBackwardBackward0",
)
ADAPTIVE_AVG_POOL = defop(
    "adaptive_avg_pool2d",
    _adaptive_fwd,
    {"x": lambda g, x_shape: apply(ADAPTIVE_AVG_POOL_BACKWARD, (g,), {"x_shape": x_shape})},
    node="AdaptiveAvgPool2DBackward0",
)
