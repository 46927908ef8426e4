"""Specs for the ATen-level functions with their own rows: `torch.fill` (FillBackward0/1),
`torch.native_dropout` (NativeDropoutBackward0), `torch.native_channel_shuffle` and
`_pack_padded_sequence` (PackPaddedSequenceBackward0)."""

from __future__ import annotations

from .spec import OpSpec, T

S = T((3, 4))

SPECS = [
    OpSpec("fill_scalar", lambda t, x: t.fill(x, 1.5) * x, [(S,)]),
    OpSpec(
        "fill_value_tensor",
        lambda t, x, v: t.fill(x, v) * x,
        [(S, T(())), (T((2, 3), nc=True), T(()))],
    ),
    OpSpec(  # train=False keeps every element: a deterministic sample of the same row
        "native_dropout",
        lambda t, x: t.native_dropout(x, 0.5, False)[0],
        [(S,), (T((3, 4), nc=True),)],
    ),
    OpSpec(  # PyTorch records a node that refuses backward: only the recording is compared
        "native_channel_shuffle",
        lambda t, x: t.native_channel_shuffle(x, 2),
        [(T((2, 4, 3)),)],
        grad=False,
    ),
    OpSpec(
        "_pack_padded_sequence",
        lambda t, x: t.nn.utils.rnn.pack_padded_sequence(x, [4, 2, 1]).data,
        [(T((4, 3, 2)),), (T((5, 3), nc=True),)],
    ),
    OpSpec(
        "_pack_padded_sequence_batch_first",
        lambda t, x: t.nn.utils.rnn.pack_padded_sequence(x, [3, 3, 1], True, False).data,
        [(T((3, 4, 2)),)],
        covers=("_pack_padded_sequence",),
    ),
]
