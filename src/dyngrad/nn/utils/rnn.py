"""`torch.nn.utils.rnn`: padding and packing batches of variable-length sequences."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from ..._tensor import Tensor
from ...ops.creation.factories import full, tensor
from ...ops.nn.packed_sequence import pack_padded

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]

_NOT_SORTED = (
    "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
    "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
    "sidestep this requirement if you do not need ONNX exportability."
)


class _PackedSequenceFields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(_PackedSequenceFields):
    """Matches `torch.nn.utils.rnn.PackedSequence`: time-major rows of a sorted batch.

    `data` holds step 0 of every sequence, then step 1 of those still running, ...;
    `batch_sizes[t]` says how many rows step t has.
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> PackedSequence:
        """`data` converted as by `Tensor.to`; the indices follow it to its device."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        indices = [None if t is None else t.to(data.device) for t in self[2:]]
        return type(self)(data, self.batch_sizes, *indices)

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def double(self) -> PackedSequence:
        return self.to(dtype=self.data.double().dtype)

    def float(self) -> PackedSequence:
        return self.to(dtype=self.data.float().dtype)

    def half(self) -> PackedSequence:
        return self.to(dtype=self.data.half().dtype)

    def long(self) -> PackedSequence:
        return self.to(dtype=self.data.long().dtype)

    def int(self) -> PackedSequence:
        return self.to(dtype=self.data.int().dtype)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda


def invert_permutation(permutation):
    """Matches `torch.nn.utils.rnn.invert_permutation`: `out[permutation[i]] = i`."""
    if permutation is None:
        return None
    order = permutation.numpy()
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size)
    return tensor(inverse, device=permutation.device)


def _time_major(input, batch_first: bool):
    return input.transpose(0, 1) if batch_first else input


def pack_padded_sequence(input, lengths, batch_first: bool = False, enforce_sorted: bool = True):
    """Matches `torch.nn.utils.rnn.pack_padded_sequence`; `lengths` in the batch's order.

    As PyTorch's: an unsorted batch is first sorted by length (IndexSelectBackward0), then
    packed by one op (PackPaddedSequenceBackward0).
    """
    lengths = np.asarray(lengths.numpy() if isinstance(lengths, Tensor) else lengths, np.int64)
    batch_dim = 0 if batch_first else 1
    batch = input.shape[batch_dim]
    sorted_indices = None
    if lengths.size != batch:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.size} "
            f"(batch_size={batch})"
        )
    if not enforce_sorted:
        order = np.argsort(-lengths, kind="stable")
        sorted_indices = tensor(order, device=input.device)
        lengths = lengths[order]
        input = input.index_select(batch_dim, sorted_indices)
    if lengths[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in "
            "'lengths' that is <= 0"
        )
    if np.any(np.diff(lengths) > 0):
        raise RuntimeError(_NOT_SORTED)
    batch_sizes = (lengths[None, :] > np.arange(lengths[0])[:, None]).sum(1)
    data = pack_padded(input, batch_sizes, batch_first)
    return PackedSequence(data, tensor(batch_sizes), sorted_indices, None)


def sorted_lengths(batch_sizes: np.ndarray) -> np.ndarray:
    """Each sequence's length, in the packed (length-sorted) order, from the batch sizes."""
    return (batch_sizes[None, :] > np.arange(int(batch_sizes[0]))[:, None]).sum(1)


def padded_sorted(sequence: PackedSequence, padding_value=0.0, length: int | None = None):
    """ATen's `_pad_packed_sequence`: the time-major padded batch in the packed (sorted)
    order, filled block by block of steps with one batch size (CopySlices)."""
    batch_sizes = sequence.batch_sizes.numpy()
    data = sequence.data
    length = batch_sizes.size if length is None else length
    out = full(
        (length, int(batch_sizes[0]), *data.shape[1:]),
        padding_value,
        dtype=data.dtype,
        device=data.device,
    )
    step = offset = 0
    while step < batch_sizes.size:
        n, end = int(batch_sizes[step]), step + 1
        while end < batch_sizes.size and batch_sizes[end] == n:
            end += 1
        rows = (end - step) * n
        out[step:end, :n] = data[offset : offset + rows].view(end - step, n, *data.shape[1:])
        step, offset = end, offset + rows
    return out


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
):
    """Matches `torch.nn.utils.rnn.pad_packed_sequence`: (padded batch, lengths)."""
    batch_sizes = sequence.batch_sizes.numpy()
    length = batch_sizes.size
    if total_length is not None:
        if total_length < length:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{length}"
            )
        length = total_length
    padded = _time_major(padded_sorted(sequence, padding_value, length), batch_first)
    lengths = sorted_lengths(batch_sizes)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.numpy()]
    return padded, tensor(lengths)


def pad_sequence(sequences, batch_first: bool = False, padding_value=0.0, padding_side="right"):
    """Matches `torch.nn.utils.rnn.pad_sequence` (each sequence copied into a filled batch)."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(
            "pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}"
        )
    sequences = tuple(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    first = sequences[0]
    longest = max(s.shape[0] for s in sequences)
    shape = (len(sequences), longest) if batch_first else (longest, len(sequences))
    out = full((*shape, *first.shape[1:]), padding_value, dtype=first.dtype, device=first.device)
    for i, seq in enumerate(sequences):
        n = seq.shape[0]
        steps = slice(0, n) if padding_side == "right" else slice(longest - n, longest)
        out[(i, steps) if batch_first else (steps, i)] = seq
    return out


def unpad_sequence(padded_sequences, lengths, batch_first: bool = False) -> list:
    """Matches `torch.nn.utils.rnn.unpad_sequence` (the input is not transposed in place)."""
    padded = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    steps = np.arange(padded.shape[1])
    return [seq[tensor(steps < int(n))] for seq, n in zip(padded, lengths, strict=True)]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Matches `torch.nn.utils.rnn.pack_sequence`."""
    lengths = [v.shape[0] for v in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """Matches `torch.nn.utils.rnn.unpack_sequence`."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
