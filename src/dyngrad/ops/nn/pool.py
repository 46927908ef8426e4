"""Pooling: max (with indices) and average, over 2 or 3 spatial dims.

One n-d kernel per op; the table holds one row per dimension because PyTorch names the nodes
by it (MaxPool2DWithIndicesBackward0, AvgPool3DBackward0). 1-d pooling runs the 2-d op on an
unsqueezed input, as PyTorch does (SqueezeBackward1 on top). Each backward is itself a linear
op whose adjoint is the forward map (a gather for max), so double backward works.
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
        and len(kernel) == 2
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


def scatter_to_input(xp, grad, indices, x_shape, nd, distinct=False):
    """Each output's gradient added at its input position (`indices` count within a plane)."""
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


def gather_from_input(xp, grad, indices, nd):
    """The adjoint of `scatter_to_input`: each output position reads its index's element."""
    flat = grad.reshape(grad.shape[:-nd] + (-1,))
    picked = xp.take_along_axis(flat, indices.reshape(indices.shape[:-nd] + (-1,)), axis=-1)
    return picked.reshape(indices.shape)


class IndexPoolOps(NamedTuple):
    """A max pool's rows: the op, its backward (a scatter) and that one's adjoint (a gather)."""

    forward: object
    backward: object
    gather: object


def index_pool_ops(name: str, node: str, nd: int, fwd, formula) -> IndexPoolOps:
    """The rows of a pool that returns (values, indices) and scatters its gradient back.

    `formula(scatter)` is the op's formula for its input, written with `scatter`. The backward
    scatters into the chosen positions; its adjoint gathers them back; the gather's adjoint
    is the scatter again, so every order of derivative stays in these rows.
    """

    def scatter_fwd(xp, grad, indices, *, x_shape, distinct=False):
        return scatter_to_input(xp, grad, indices, x_shape, nd, distinct)

    def gather_fwd(xp, grad, indices):
        return gather_from_input(xp, grad, indices, nd)

    def scatter(g, indices, x_shape, distinct=False):
        return apply(backward, (g, indices), {"x_shape": x_shape, "distinct": distinct})

    backward = defop(
        f"{name}_backward",
        scatter_fwd,
        {"grad": lambda g, indices: apply(gather, (g, indices))},
        node=node.replace("Backward0", "BackwardBackward0"),
    )
    gather = defop(
        f"{name}_gather",
        gather_fwd,
        {"grad": lambda g, indices, grad_shape: scatter(g, indices, grad_shape)},
        node="GatherBackward0",
    )
    forward = defop(
        name,
        fwd,
        {"x": formula(scatter)},
        node=node,
        outputs=2,
        differentiable=(0,),
    )
    return IndexPoolOps(forward, backward, gather)


def _max_pool_formula(scatter):
    return lambda g, out, x_shape, window: scatter(g[0], out[1], x_shape, _tiled(window, x_shape))


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


def _avg_pool_ops(nd: int):
    backward = defop(
        f"avg_pool{nd}d_backward",
        _avg_pool_backward_fwd,
        {"grad": lambda g, window, options: avg_pool(g, window, options)},
        node=f"AvgPool{nd}DBackwardBackward0",
    )
    return defop(
        f"avg_pool{nd}d",
        _avg_pool_fwd,
        {
            "x": lambda g, x_shape, window, options: apply(
                backward, (g,), {"x_shape": x_shape, "window": window, "options": options}
            )
        },
        node=f"AvgPool{nd}DBackward0",
    )


# the rows by the number of spatial dims: PyTorch names each dimension's nodes apart
MAX_POOL_OPS = {
    nd: index_pool_ops(
        f"max_pool{nd}d_with_indices",
        f"MaxPool{nd}DWithIndicesBackward0",
        nd,
        _max_pool_fwd,
        _max_pool_formula,
    )
    for nd in (2, 3)
}
MAX_POOL = {nd: ops.forward for nd, ops in MAX_POOL_OPS.items()}
AVG_POOL = {nd: _avg_pool_ops(nd) for nd in (2, 3)}


def avg_pool(x, window, options):
    return apply(AVG_POOL[len(window.kernel)], (x,), {"window": window, "options": options})
