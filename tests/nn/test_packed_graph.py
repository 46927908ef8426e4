"""Packed sequences record PyTorch's graph: PackPaddedSequenceBackward0 (after an
IndexSelectBackward0 that sorts an unsorted batch), CopySlices for the padding, CatBackward0
for a packed RNN's output and IndexSelectBackward0 for its final states of an unsorted batch;
values and gradients equal PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

X = np.random.default_rng(0).standard_normal((5, 3, 4))


def _chain(t) -> list:
    names, fn = [], t.grad_fn
    while fn is not None:
        names.append(fn.name())
        nxt = [f for f, _ in fn.next_functions if f is not None and "Accumulate" not in f.name()]
        fn = nxt[0] if nxt else None
    return names


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths", [[5, 3, 2], [2, 5, 3]])
def test_pack_then_pad_graph_values_and_gradients(lengths, batch_first, torch):
    results = []
    for lib in (dyngrad, torch):
        x = lib.from_numpy(X.transpose(1, 0, 2).copy() if batch_first else X.copy())
        x.requires_grad_(True)
        rnn = lib.nn.utils.rnn
        packed = rnn.pack_padded_sequence(x, lengths, batch_first, enforce_sorted=False)
        padded, out_lengths = rnn.pad_packed_sequence(packed, batch_first, -1.0, total_length=6)
        (padded * lib.arange(padded.numel(), dtype=lib.float64).view(padded.shape)).sum().backward()
        results.append(
            (
                _chain(packed.data),
                _chain(padded),
                packed.batch_sizes.tolist(),
                None if packed.sorted_indices is None else packed.sorted_indices.tolist(),
                out_lengths.tolist(),
                packed.data.detach().numpy(),
                padded.detach().numpy(),
                x.grad.numpy(),
            )
        )
    ours, theirs = results
    assert ours[:5] == theirs[:5]
    for a, b in zip(ours[5:], theirs[5:]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("sort", [True, False])
def test_rnn_on_a_packed_batch_records_torchs_graph(kind, sort, torch):
    lengths = [5, 3, 2] if sort else [3, 5, 2]
    results = []
    for lib in (dyngrad, torch):
        lib.manual_seed(0)
        module = getattr(lib.nn, kind)(4, 6, num_layers=2).double()
        x = lib.from_numpy(X.copy()).requires_grad_(True)
        packed = lib.nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=sort)
        h0 = lib.from_numpy(np.linspace(-1, 1, 36).reshape(2, 3, 6))
        hx = (h0, h0 * 0.5) if kind == "LSTM" else h0
        out, state = module(packed, hx)
        h_n = state[0] if kind == "LSTM" else state
        (out.data.sum() + (h_n * h_n).sum()).backward()
        results.append(
            (
                out.data.grad_fn.name(),
                h_n.grad_fn.name(),
                out.data.detach().numpy(),
                h_n.detach().numpy(),
                x.grad.numpy(),
                module.weight_hh_l0.grad.numpy(),
            )
        )
    ours, theirs = results
    assert ours[:2] == theirs[:2]
    for a, b in zip(ours[2:], theirs[2:]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
