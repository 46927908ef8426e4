"""nn.utils.rnn (pad / pack / unpack) and packed input to RNN, LSTM and GRU, against torch."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from .parity import assert_same, twins

R = np.random.default_rng(7)
LENGTHS = [3, 5, 2]


def sequences(lib, lengths=LENGTHS, feature=(2,), seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal((n, *feature)) for n in lengths]
    return [lib.tensor(a, requires_grad=True) for a in arrays]


def rnn_utils(lib):
    return lib.nn.utils.rnn


def backward_grads(lib, outputs, inputs, seed=1):
    """Backpropagate one random cotangent per output; the inputs' gradients."""
    rng = np.random.default_rng(seed)
    total = sum((o * lib.from_numpy(rng.standard_normal(tuple(o.shape)))).sum() for o in outputs)
    total.backward()
    return [t.grad.numpy() for t in inputs]


def assert_pair(theirs, ours):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    assert str(ours.dtype) == str(theirs.dtype)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"batch_first": True},
        {"padding_value": -1.5},
        {"batch_first": True, "padding_side": "left"},
        {"padding_side": "left", "padding_value": 3.0},
    ],
)
@pytest.mark.parametrize("feature", [(), (2,), (2, 3)])
def test_pad_sequence_matches_torch(kwargs, feature, torch):
    results = []
    for lib in (torch, dyngrad):
        seqs = sequences(lib, feature=feature)
        out = rnn_utils(lib).pad_sequence(seqs, **kwargs)
        results.append((out, backward_grads(lib, [out], seqs)))
    (theirs, t_grads), (ours, d_grads) = results
    assert_pair(theirs, ours)
    assert ours.grad_fn.name() == theirs.grad_fn.name() == "torch::autograd::CopySlices"
    for t, d in zip(t_grads, d_grads):
        np.testing.assert_allclose(d, t, rtol=1e-12)


@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_then_pad_round_trip_matches_torch(enforce_sorted, batch_first, torch):
    lengths = sorted(LENGTHS, reverse=True) if enforce_sorted else LENGTHS
    results = []
    for lib in (torch, dyngrad):
        utils = rnn_utils(lib)
        seqs = sequences(lib, lengths)
        padded = utils.pad_sequence(seqs, batch_first=batch_first)
        packed = utils.pack_padded_sequence(padded, lengths, batch_first, enforce_sorted)
        back, back_lengths = utils.pad_packed_sequence(
            packed, batch_first=batch_first, padding_value=9.0, total_length=6
        )
        grads = backward_grads(lib, [packed.data, back], seqs)
        results.append((packed, back, back_lengths, grads))
    (t_packed, t_back, t_len, t_grads), (d_packed, d_back, d_len, d_grads) = results
    assert_pair(t_packed.data, d_packed.data)
    for field in ("batch_sizes", "sorted_indices", "unsorted_indices"):
        t_field, d_field = getattr(t_packed, field), getattr(d_packed, field)
        assert (d_field is None) == (t_field is None), field
        if t_field is not None:
            assert d_field.tolist() == t_field.tolist() and d_field.dtype == dyngrad.int64
    assert_pair(t_back, d_back)
    assert d_len.tolist() == t_len.tolist() and d_len.dtype == dyngrad.int64
    for t, d in zip(t_grads, d_grads):
        np.testing.assert_allclose(d, t, rtol=1e-12)


def test_pack_ties_keep_torchs_order(torch):
    lengths = [2, 3, 2, 3, 2]
    order = [
        rnn_utils(lib)
        .pack_padded_sequence(lib.zeros(3, 5, 1), lengths, enforce_sorted=False)
        .sorted_indices.tolist()
        for lib in (torch, dyngrad)
    ]
    assert order[1] == order[0]


def test_pack_sequence_unpack_and_unpad_match_torch(torch):
    results = []
    for lib in (torch, dyngrad):
        utils = rnn_utils(lib)
        packed = utils.pack_sequence(sequences(lib), enforce_sorted=False)
        padded = utils.pad_sequence(sequences(lib), batch_first=True)
        unpadded = utils.unpad_sequence(padded, lib.tensor(LENGTHS), batch_first=True)
        results.append((utils.unpack_sequence(packed), unpadded))
    for theirs, ours in zip(*results):
        for t_seq, d_seq in zip(theirs, ours, strict=True):
            assert_pair(t_seq, d_seq)


def test_packed_sequence_is_torchs_named_tuple(torch):
    utils = rnn_utils(dyngrad)
    packed = utils.pack_sequence(sequences(dyngrad), enforce_sorted=False)
    assert packed._fields == rnn_utils(torch).PackedSequence._fields
    data, batch_sizes, sorted_indices, unsorted_indices = packed
    assert repr(packed).startswith("PackedSequence(data=tensor(")
    rebuilt = utils.PackedSequence(data, batch_sizes, sorted_indices)
    assert rebuilt.unsorted_indices.tolist() == unsorted_indices.tolist() == [1, 0, 2]
    assert packed.float().data.dtype == dyngrad.float32
    assert packed.to(dyngrad.float64) is packed
    perm = [2, 0, 3, 1]
    ours = utils.invert_permutation(dyngrad.tensor(perm)).tolist()
    assert ours == rnn_utils(torch).invert_permutation(torch.tensor(perm)).tolist()
    assert utils.invert_permutation(None) is None


ERRORS = {
    "not_iterable": lambda u, lib: u.pad_sequence(5),
    "empty": lambda u, lib: u.pad_sequence([]),
    "side": lambda u, lib: u.pad_sequence([lib.zeros(2)], padding_side="middle"),
    "unsorted": lambda u, lib: u.pack_sequence([lib.zeros(1), lib.zeros(2)]),
    "zero_length": lambda u, lib: u.pack_padded_sequence(
        lib.zeros(3, 3), [3, 0, 2], enforce_sorted=False
    ),
    "batch": lambda u, lib: u.pack_padded_sequence(lib.zeros(3, 3), [3, 2, 2, 1]),
    "total_length": lambda u, lib: u.pad_packed_sequence(
        u.pack_sequence([lib.zeros(3), lib.zeros(1)]), total_length=2
    ),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case, torch):
    raised = []
    for lib in (torch, dyngrad):
        with pytest.raises(Exception) as info:
            ERRORS[case](rnn_utils(lib), lib)
        raised.append((type(info.value), str(info.value)))
    assert raised[1] == raised[0]


RNNS = {
    "lstm_2layer_bidirectional": lambda nn: nn.LSTM(4, 3, num_layers=2, bidirectional=True),
    "gru_batch_first": lambda nn: nn.GRU(4, 3, batch_first=True),
    "rnn_relu_bidirectional": lambda nn: nn.RNN(4, 3, nonlinearity="relu", bidirectional=True),
}


@pytest.mark.parametrize("with_hidden", [False, True])
@pytest.mark.parametrize("name", sorted(RNNS))
def test_recurrent_layers_take_packed_input_as_torch(name, with_hidden, torch):
    pair = twins(torch, RNNS[name])
    layer = pair[0]
    directions = layer.num_layers * (2 if layer.bidirectional else 1)

    def call(module, padded, *hidden):
        lib = torch if isinstance(module, torch.nn.Module) else dyngrad
        utils = rnn_utils(lib)
        packed = utils.pack_padded_sequence(padded, LENGTHS, enforce_sorted=False)
        if len(hidden) == 2:
            hidden = (tuple(hidden),)
        out, state = module(packed, *hidden)
        assert isinstance(out, utils.PackedSequence)
        assert out.batch_sizes.tolist() == packed.batch_sizes.tolist()
        assert out.sorted_indices.tolist() == packed.sorted_indices.tolist()
        return utils.pad_packed_sequence(out)[0], state

    hidden = []
    if with_hidden:
        count = 2 if name.startswith("lstm") else 1
        hidden = [R.standard_normal((directions, 3, 3)) for _ in range(count)]
    assert_same(torch, pair, [R.standard_normal((5, 3, 4)), *hidden], call=call)
