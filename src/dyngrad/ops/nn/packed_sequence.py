"""`_pack_padded_sequence`: the valid rows of a length-sorted padded batch, step by step, as
one op (PackPaddedSequenceBackward0); its backward puts the gradient rows back in place and
zeros the padding."""

from __future__ import annotations

import numpy as np

from ..creation.factories import tensor
from ..shape.joining import cat
from ..table.array_backward import ArrayBackward
from ..table.record import apply
from ..table.registry import defop


def packed_positions(batch_sizes, batch: int) -> np.ndarray:
    """The rows, in the time-major (T * B) flattening, that step t's first batch_sizes[t]
    sequences occupy, step after step: the packed order."""
    return np.concatenate([t * batch + np.arange(n) for t, n in enumerate(batch_sizes)])


def _time_major_shape(x_shape, batch_first: bool) -> tuple:
    return (x_shape[1], x_shape[0], *x_shape[2:]) if batch_first else tuple(x_shape)


def _pack_fwd(xp, x, *, batch_sizes, batch_first):
    steps = xp.swapaxes(x, 0, 1) if batch_first else x
    rows = steps.reshape(-1, *steps.shape[2:])
    return rows[packed_positions(batch_sizes, steps.shape[1])]


def _unpack_grad(g, x_shape, batch_sizes, batch_first):
    # the packed rows gathered back into a (T * B) batch, a zero row for every padding slot
    shape = _time_major_shape(x_shape, batch_first)
    positions = packed_positions(batch_sizes, shape[1])
    gather = np.full(shape[0] * shape[1], positions.size)
    gather[positions] = np.arange(positions.size)
    rows = cat([g, g.new_zeros((1, *g.shape[1:]))]).index_select(0, tensor(gather))
    out = rows.view(*shape)
    return out.transpose(0, 1) if batch_first else out


def _unpack_kernel(xp, needs, g, x_shape, batch_sizes, batch_first):
    shape = _time_major_shape(x_shape, batch_first)
    out = xp.zeros(shape, g.dtype)
    out.reshape(-1, *shape[2:])[packed_positions(batch_sizes, shape[1])] = g
    return (xp.swapaxes(out, 0, 1) if batch_first else out,)


PACK_PADDED_SEQUENCE = defop(
    "_pack_padded_sequence",
    _pack_fwd,
    {"x": _unpack_grad},
    node="PackPaddedSequenceBackward0",
    array_backward=ArrayBackward(_unpack_kernel),
)


def pack_padded(input, batch_sizes, batch_first: bool):
    """ATen's `_pack_padded_sequence` for a batch already sorted by length: the packed data."""
    sizes = tuple(int(n) for n in batch_sizes)
    return apply(PACK_PADDED_SEQUENCE, (input,), {"batch_sizes": sizes, "batch_first": batch_first})
