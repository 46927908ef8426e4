"""PyTorch's functional recurrent ops: `torch.lstm_cell`, `gru_cell`, `rnn_tanh_cell`,
`rnn_relu_cell` (one step, weights passed in) and `torch.lstm`, `gru`, `rnn_tanh`, `rnn_relu`
(whole sequences over a flat parameter list, as `nn.LSTM` passes its `_flat_weights`).

The steps are nn.LSTMCell's and friends' (modules/rnn_cell.py), so the values and the nodes
recorded (`MulBackward0` for an LSTM's h, `AddBackward0` for a GRU's) are PyTorch's composites.
"""

from __future__ import annotations

from .._tensor import Tensor
from ..ops.shape.joining import cat, stack
from . import functional as F
from .modules.rnn_cell import gru_step, lstm_step, rnn_step

__all__ = [
    "lstm_cell",
    "gru_cell",
    "rnn_tanh_cell",
    "rnn_relu_cell",
    "lstm",
    "gru",
    "rnn_tanh",
    "rnn_relu",
]


def _check_cell(input: Tensor, hidden: tuple, w_ih, w_hh, gates: int) -> None:
    # ATen's order: the input's width, then each hidden state's batch and width, then the gates
    if input.size(1) != w_ih.shape[1]:
        raise RuntimeError(
            f"input has inconsistent input_size: got {input.size(1)} expected {w_ih.shape[1]}"
        )
    hidden_size = w_hh.shape[1]
    for k, h in enumerate(hidden):
        if input.size(0) != h.size(0):
            raise RuntimeError(
                f"Input batch size {input.shape[0]} doesn't match hidden{k} batch size {h.shape[0]}"
            )
        if h.size(1) != hidden_size:
            raise RuntimeError(
                f"hidden{k} has inconsistent hidden_size: got {h.shape[1]}, expected {hidden_size}"
            )
    for name, w in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        if w.shape[0] != gates * hidden_size:
            raise RuntimeError(
                f"{name} first dim must be {gates} * hidden_size = {gates * hidden_size}, "
                f"but got {w.shape[0]}"
            )


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> tuple:
    """Matches `torch.lstm_cell`: one LSTM step, (h', c') from hx = (h, c)."""
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    _check_cell(input, tuple(hx), w_ih, w_hh, 4)
    return lstm_step(F.linear(input, w_ih, b_ih), tuple(hx), w_hh, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """Matches `torch.gru_cell`: one GRU step (gates r, z, n)."""
    _check_cell(input, (hx,), w_ih, w_hh, 3)
    return gru_step(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """Matches `torch.rnn_tanh_cell`: tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    _check_cell(input, (hx,), w_ih, w_hh, 1)
    return rnn_step("tanh")(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """Matches `torch.rnn_relu_cell`: relu(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    _check_cell(input, (hx,), w_ih, w_hh, 1)
    return rnn_step("relu")(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


def _groups(params, has_biases: bool, count: int) -> list:
    """The flat parameter list cut into one (w_ih, w_hh, b_ih, b_hh, w_hr) per layer and
    direction, in nn.RNNBase's `_flat_weights` order."""
    params = list(params)
    size = len(params) // count
    groups = []
    for k in range(count):
        group = params[k * size : (k + 1) * size]
        weights, rest = group[:2], group[2:]
        biases = rest[:2] if has_biases else [None, None]
        proj = rest[2:] if has_biases else rest
        groups.append((*weights, *biases, proj[0] if proj else None))
    return groups


def _run(input, states: list, params, has_biases, num_layers, dropout, train, bidirectional, step):
    """Every layer and direction over time-major `input`; the outputs and final states."""
    directions = 2 if bidirectional else 1
    groups = _groups(params, has_biases, num_layers * directions)
    finals = []
    for layer in range(num_layers):
        outputs = []
        for d in range(directions):
            w_ih, w_hh, b_ih, b_hh, w_hr = groups[layer * directions + d]
            state = states[layer * directions + d]
            seq = input if d == 0 else input.flip(0)
            projected, steps = F.linear(seq, w_ih, b_ih), []
            for t in range(projected.shape[0]):
                state = step(projected[t], state, w_hh, b_hh)
                if w_hr is not None:  # an LSTM with proj_size: h is projected
                    state = (F.linear(state[0], w_hr), state[1])
                steps.append(state[0] if isinstance(state, tuple) else state)
            out = stack(steps)
            outputs.append(out if d == 0 else out.flip(0))
            finals.append(state)
        input = outputs[0] if directions == 1 else cat(outputs, -1)
        if dropout and train and layer < num_layers - 1:
            input = F.dropout(input, dropout, True)
    return input, finals


def _sequence(name: str, input, hx, params, options: tuple, step):
    if not isinstance(params, (list, tuple)):
        raise NotImplementedError(
            f"torch.{name} on a packed sequence (data, batch_sizes, ...) is not supported by "
            f"dyngrad; pass a padded tensor, or use nn.{name.split('_')[0].upper()} with a "
            "PackedSequence."
        )
    has_biases, num_layers, dropout, train, bidirectional, batch_first = options
    for h in hx:  # no unbatched form: each layer's state must be (batch, hidden)
        if h.dim() != 3:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-{max(h.dim() - 1, 1)}, "
                f"{max(h.dim() - 2, 0)}], but got 1)"
            )
    if batch_first:
        input = input.transpose(0, 1)
    if len(hx) == 2:
        states = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
    else:
        states = list(hx[0].unbind(0))
    output, finals = _run(
        input, states, params, has_biases, num_layers, dropout, train, bidirectional, step
    )
    if batch_first:
        output = output.transpose(0, 1)
    if len(hx) == 2:
        return output, stack([h for h, _ in finals]), stack([c for _, c in finals])
    return output, stack(finals)


def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """Matches `torch.lstm` (padded input): (output, h_n, c_n)."""
    options = (has_biases, num_layers, dropout, train, bidirectional, batch_first)
    if isinstance(hx, Tensor):  # lstm(data, batch_sizes, hx, params, ...): a packed sequence
        params = None
    return _sequence("lstm", input, tuple(hx), params, options, lstm_step)


def gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """Matches `torch.gru` (padded input): (output, h_n)."""
    options = (has_biases, num_layers, dropout, train, bidirectional, batch_first)
    return _sequence("gru", input, (hx,), params, options, gru_step)


def rnn_tanh(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """Matches `torch.rnn_tanh` (padded input): (output, h_n)."""
    options = (has_biases, num_layers, dropout, train, bidirectional, batch_first)
    return _sequence("rnn_tanh", input, (hx,), params, options, rnn_step("tanh"))


def rnn_relu(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """Matches `torch.rnn_relu` (padded input): (output, h_n)."""
    options = (has_biases, num_layers, dropout, train, bidirectional, batch_first)
    return _sequence("rnn_relu", input, (hx,), params, options, rnn_step("relu"))
