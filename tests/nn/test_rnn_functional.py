"""torch.lstm_cell / gru_cell / rnn_*_cell and torch.lstm / gru / rnn_* against torch: the
same weights give the same outputs, gradients, node names and argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

RNG = np.random.default_rng(0)


def _arrays(*shapes):
    return [RNG.standard_normal(s) for s in shapes]


def _tensors(lib, arrays):
    return [lib.tensor(a, requires_grad=True) for a in arrays]


CELLS = [
    ("lstm_cell", 4),
    ("gru_cell", 3),
    ("rnn_tanh_cell", 1),
    ("rnn_relu_cell", 1),
]


@pytest.mark.parametrize("name,gates", CELLS)
@pytest.mark.parametrize("bias", [True, False])
def test_cells_match_torch(name, gates, bias, torch):
    arrays = _arrays(
        (2, 3), (2, 4), (2, 4), (gates * 4, 3), (gates * 4, 4), (gates * 4,), (gates * 4,)
    )
    results = []
    for lib in (dyngrad, torch):
        x, h, c, w_ih, w_hh, b_ih, b_hh = _tensors(lib, arrays)
        hx = (h, c) if name == "lstm_cell" else h
        biases = (b_ih, b_hh) if bias else ()
        out = getattr(lib, name)(x, hx, w_ih, w_hh, *biases)
        outs = out if isinstance(out, tuple) else (out,)
        sum((o * (k + 1)).sum() for k, o in enumerate(outs)).backward()
        leaves = (x, h, c, w_ih, w_hh) + ((b_ih, b_hh) if bias else ())
        results.append(
            (
                [o.detach().numpy() for o in outs],
                [o.grad_fn.name() for o in outs],
                [np.zeros(1) if t.grad is None else t.grad.numpy() for t in leaves],
            )
        )
    (ours, our_names, our_grads), (theirs, their_names, their_grads) = results
    assert our_names == their_names
    for a, b in zip(ours + our_grads, theirs + their_grads):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_cells_match_the_modules(lib):
    lib.manual_seed(0)
    cell = lib.nn.LSTMCell(3, 5)
    x, h, c = lib.randn(2, 3), lib.randn(2, 5), lib.randn(2, 5)
    hy, cy = lib.lstm_cell(x, (h, c), cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)
    ref_h, ref_c = cell(x, (h, c))
    assert lib.allclose(hy, ref_h) and lib.allclose(cy, ref_c)


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda t, x, h, w, u: t.lstm_cell(x, (h,), w, u), "lstm_cell expects two hidden states"),
        (
            lambda t, x, h, w, u: t.gru_cell(x, h, w[:12], u[:12, :3]),
            "hidden0 has inconsistent hidden_size: got 4, expected 3",
        ),
        (
            lambda t, x, h, w, u: t.rnn_tanh_cell(x, h[:1], w[:4], u[:4]),
            "Input batch size 2 doesn't match hidden0 batch size 1",
        ),
        (
            lambda t, x, h, w, u: t.lstm_cell(x, (h, h), w, u[:12]),
            r"weight_hh first dim must be 4 \* hidden_size = 16, but got 12",
        ),
        (
            lambda t, x, h, w, u: t.rnn_relu_cell(x[:, :2], h, w[:4], u[:4]),
            "input has inconsistent input_size: got 2 expected 3",
        ),
    ],
)
def test_cell_argument_errors_as_torch(lib, call, message):
    x, h, w, u = lib.ones(2, 3), lib.ones(2, 4), lib.ones(16, 3), lib.ones(16, 4)
    with pytest.raises(RuntimeError, match=message):
        call(lib, x, h, w, u)


SEQUENCES = [
    ("lstm", "LSTM", {}),
    ("lstm", "LSTM", {"proj_size": 2}),
    ("gru", "GRU", {}),
    ("rnn_tanh", "RNN", {}),
    ("rnn_relu", "RNN", {"nonlinearity": "relu"}),
]


@pytest.mark.parametrize("name,cls,kwargs", SEQUENCES)
@pytest.mark.parametrize(
    "bias,bidirectional,batch_first", [(True, False, False), (False, True, True)]
)
def test_sequence_functions_match_torch(name, cls, kwargs, bias, bidirectional, batch_first, torch):
    reference = getattr(torch.nn, cls)(
        3, 4, num_layers=2, bias=bias, bidirectional=bidirectional, batch_first=batch_first,
        **kwargs,
    ).double()  # fmt: skip
    names = reference._flat_weights_names
    state = {k: v.detach().numpy() for k, v in reference.state_dict().items()}
    x = RNG.standard_normal((2, 5, 3) if batch_first else (5, 2, 3))
    dirs = 2 if bidirectional else 1
    h0 = RNG.standard_normal((2 * dirs, 2, kwargs.get("proj_size", 4)))
    c0 = RNG.standard_normal((2 * dirs, 2, 4))
    results = []
    for lib in (dyngrad, torch):
        params = [lib.tensor(state[n], requires_grad=True) for n in names]
        inp = lib.tensor(x, requires_grad=True)
        hx = (lib.tensor(h0), lib.tensor(c0)) if name == "lstm" else lib.tensor(h0)
        out = getattr(lib, name)(inp, hx, params, bias, 2, 0.0, False, bidirectional, batch_first)
        sum((o.sin() * (k + 1)).sum() for k, o in enumerate(out)).backward()
        grads = [inp.grad.numpy()] + [p.grad.numpy() for p in params]
        results.append(([o.detach().numpy() for o in out], grads))
    (ours, our_grads), (theirs, their_grads) = results
    assert len(ours) == len(theirs)
    for a, b in zip(ours + our_grads, theirs + their_grads):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    expected = reference(
        torch.tensor(x),
        (torch.tensor(h0), torch.tensor(c0)) if name == "lstm" else torch.tensor(h0),
    )
    expected = (expected[0], *expected[1]) if name == "lstm" else expected
    for a, b in zip(ours, expected):  # the functional form is the module's computation
        np.testing.assert_allclose(a, b.detach().numpy(), rtol=1e-9, atol=1e-12)


def test_a_two_dimensional_hidden_state_is_refused_as_torch(lib):
    # torch.gru has no unbatched form (nn.GRU adds the batch dimension itself)
    x, h = lib.randn(5, 3), lib.randn(1, 4)
    params = [lib.randn(12, 3), lib.randn(12, 4), lib.randn(12), lib.randn(12)]
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range"):
        lib.gru(x, h, params, True, 1, 0.0, False, False, False)


@pytest.mark.parametrize("name", ["lstm", "gru", "rnn_tanh"])
def test_the_packed_form_is_refused_clearly(name):
    data, batch_sizes = dyngrad.randn(5, 3), dyngrad.tensor([2, 2, 1])
    hx = (dyngrad.zeros(1, 2, 4),) * 2 if name == "lstm" else dyngrad.zeros(1, 2, 4)
    params = [dyngrad.randn(4, 3), dyngrad.randn(4, 4)]
    with pytest.raises(NotImplementedError, match="on a packed sequence"):
        getattr(dyngrad, name)(data, batch_sizes, hx, params, False, 1, 0.0, False, False)
