"""Reflection and replication padding: one row per mode and padded rank, as PyTorch's nodes.

# Note [Padding as a gather]
# Reflect and replicate padding copy, for each output position along a padded dim, one input
# position (`source_index`). The forward gathers along each padded dim in turn; its backward
# adds each output gradient back onto the position it came from (a scatter-add, the adjoint of
# the gather), and the backward's own gradient is the padding again, so double backward comes
# free. PyTorch names the nodes by mode and padded rank (`ReflectionPad2DBackward0`,
# `ReplicationPad1DBackwardBackward0`), so each (mode, rank) is its own row. Its backward
# takes the input too (for its shape) and links it with a zero gradient, as PyTorch's does.
"""

from __future__ import annotations

import numpy as np

from ..table.record import apply
from ..table.registry import defop

MODES = {"reflect": "reflection", "replicate": "replication"}


def source_index(size: int, lo: int, hi: int, mode: str) -> np.ndarray:
    """For each output position along one dim, the input position it copies."""
    if mode == "circular":  # negative pads crop first; positive ones wrap what is left
        start, stop = max(-lo, 0), size - max(-hi, 0)
        kept = np.arange(start, stop)
        return kept[np.arange(-max(lo, 0), len(kept) + max(hi, 0)) % max(len(kept), 1)]
    index = np.arange(-lo, size + hi)
    if mode == "replicate":
        return np.clip(index, 0, size - 1)
    period = 2 * (size - 1)
    index = np.abs((index + period) % period if period else index * 0)
    return np.where(index >= size, period - index, index)


def _padded_dims(ndim: int, padding: tuple):
    """(axis, lo, hi) per padded dim; PyTorch's flat list names the last dim first."""
    for i in range(len(padding) // 2):
        yield ndim - 1 - i, padding[2 * i], padding[2 * i + 1]


def _gather(xp, x, padding, mode):
    for axis, lo, hi in _padded_dims(x.ndim, padding):
        index = source_index(x.shape[axis], lo, hi, mode)
        x = xp.take(x, xp.asarray(index), axis=axis)
    return x


def _scatter_add(xp, grad, size: int, lo: int, hi: int, mode: str, axis: int):
    index = source_index(size, lo, hi, mode)
    g = xp.moveaxis(grad, axis, 0)
    result = xp.zeros((size,) + g.shape[1:], dtype=g.dtype)
    # output j copies input j - lo wherever that is inside the input: one slice; the padded
    # positions (a few) are added one by one, since several may copy the same input position
    start, stop = max(lo, 0), min(lo + size, len(index))
    if stop > start:
        result[start - lo : stop - lo] += g[start:stop]
    for j in [*range(start), *range(max(stop, start), len(index))]:
        result[int(index[j])] += g[j]
    return xp.moveaxis(result, 0, axis)


def _make_rows(mode: str, rank: int):
    title = MODES[mode].capitalize()

    def fwd(xp, x, *, padding):
        return _gather(xp, x, padding, mode)

    def backward_fwd(xp, grad, x, *, padding):
        for axis, lo, hi in _padded_dims(x.ndim, padding):
            grad = _scatter_add(xp, grad, x.shape[axis], lo, hi, mode, axis)
        return grad

    forward = defop(
        f"{MODES[mode]}_pad{rank}d",
        fwd,
        {"x": lambda g, x, padding: apply(backward, (g, x), {"padding": padding})},
        node=f"{title}Pad{rank}DBackward0",
    )
    backward = defop(
        f"{MODES[mode]}_pad{rank}d_backward",
        backward_fwd,
        {
            "grad": lambda g, padding: apply(forward, (g,), {"padding": padding}),
            "x": lambda g, x_shape: g.new_zeros(x_shape),
        },
        node=f"{title}Pad{rank}DBackwardBackward0",
    )
    return forward


PAD_ROWS = {(mode, rank): _make_rows(mode, rank) for mode in MODES for rank in (1, 2, 3)}


def index_pad(x, padding, mode: str):
    """Reflect or replicate padding of `x` (PyTorch's flat `padding`, last dim first)."""
    return apply(PAD_ROWS[mode, len(padding) // 2], (x,), {"padding": tuple(padding)})
