"""Recurrent layers `RNN`, `LSTM` and `GRU`, built from basic ops.

PyTorch's weight names (`weight_ih_l0`, `bias_hh_l1_reverse`) and gate order (LSTM: i, f, g,
o; GRU: r, z, n) are kept, so state_dicts move between the two. Each layer projects the
whole input sequence in one matmul and loops over time only for the hidden-to-hidden part.
A PackedSequence runs padded, each sequence's state held once it has ended.
"""

from __future__ import annotations

import numbers
import warnings

from ...ops.creation.factories import empty, tensor, zeros
from ...ops.elementwise.compare import where
from ...ops.shape.joining import cat, stack
from ...ops.table import record as recording
from .. import functional as F
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, padded_sorted, sorted_lengths
from .module import Module
from .rnn_cell import RNNCellBase, gru_step, lstm_step, rnn_step

__all__ = ["RNNBase", "RNN", "LSTM", "GRU"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _check_options(hidden_size, num_layers, dropout, proj_size) -> None:
    if (
        not isinstance(dropout, numbers.Number)
        or not 0 <= dropout <= 1
        or isinstance(dropout, bool)
    ):
        raise ValueError(
            "dropout should be a number in range [0, 1] representing the "
            "probability of an element being zeroed"
        )
    if dropout > 0 and num_layers == 1:
        warnings.warn(
            "dropout option adds dropout after all but last recurrent layer, so "
            "non-zero dropout expects num_layers greater than 1, but got "
            f"dropout={dropout} and num_layers={num_layers}",
            stacklevel=4,  # the line that builds the layer
        )
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size:
        raise NotImplementedError("dyngrad does not implement torch.nn.LSTM(proj_size>0)")


def _held(alive, new, old):
    """`new` for the sequences still running, `old` (held) for those that have ended, in
    `new`'s dtype (PyTorch's packed loop never mixes the two: a bfloat16 step under autocast
    stays bfloat16)."""
    if isinstance(new, tuple):
        return tuple(_held(alive, n, o) for n, o in zip(new, old))
    return where(alive, new, old if old.dtype == new.dtype else old.to(new.dtype))


class RNNBase(Module):
    """What RNN, LSTM and GRU share: PyTorch's parameters, checks and the layer loop."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device=None,
        dtype=None,
    ):
        super().__init__()
        _check_options(hidden_size, num_layers, dropout, proj_size)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        self._flat_weights_names = []
        self._make_weights(device, dtype)
        self.reset_parameters()

    def _make_weights(self, device, dtype) -> None:
        """PyTorch's parameters, in its order: `weight_ih_l0`, ..., `bias_hh_l1_reverse`."""
        directions = 2 if self.bidirectional else 1
        gate_size = _GATES[self.mode] * self.hidden_size
        for layer in range(self.num_layers):
            layer_input = self.input_size if layer == 0 else self.hidden_size * directions
            for suffix in ("", "_reverse")[:directions]:
                shapes = {
                    "weight_ih": (gate_size, layer_input),
                    "weight_hh": (gate_size, self.hidden_size),
                }
                if self.bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                for kind, shape in shapes.items():
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(empty(*shape, dtype=dtype, device=device)))
                    self._flat_weights_names.append(name)

    reset_parameters = RNNCellBase.reset_parameters

    def flatten_parameters(self) -> None:
        """A no-op, as on CPU in PyTorch."""

    @property
    def all_weights(self) -> list:
        per = 4 if self.bias else 2
        names = self._flat_weights_names
        return [[getattr(self, n) for n in names[i : i + per]] for i in range(0, len(names), per)]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    _cast_weights = None  # parameter id -> its cast, while an LSTM runs as oneDNN's kernel

    def _weights(self, layer: int, suffix: str) -> tuple:
        get = lambda kind: (
            getattr(self, f"{kind}_l{layer}{suffix}")
            # noqa: E731
            if (self.bias or kind.startswith("weight"))
            else None
        )
        weights = get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh")
        if self._cast_weights is not None:
            weights = tuple(None if w is None else self._cast_weights[id(w)] for w in weights)
        return weights

    def _check_input(self, input) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D instead"
            )
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {input.shape[-1]}"
            )

    def _check_hidden(self, hx, batch: int, message: str) -> None:
        expected = (self.num_layers * (2 if self.bidirectional else 1), batch, self.hidden_size)
        if tuple(hx.shape) != expected:
            raise RuntimeError(message.format(expected, list(hx.shape)))

    def _direction(self, projected, state, layer: int, suffix: str, step, alive):
        """Run one direction of one layer over time (already reversed for '_reverse')."""
        _, w_hh, _, b_hh = self._weights(layer, suffix)
        outputs = []
        for t in range(projected.shape[0]):
            new = step(projected[t], state, w_hh, b_hh)
            state = new if alive is None else _held(alive[t], new, state)
            outputs.append(state[0] if isinstance(state, tuple) else state)
        return stack(outputs), state

    def _layers(self, input, states: list, step, alive=None):
        """All layers and directions; `states[k]` is the initial state of layer/direction k.

        `alive[t]` (B, 1) marks the sequences still running at step t of a packed batch.
        """
        finals = []
        directions = ("", "_reverse") if self.bidirectional else ("",)
        for layer in range(self.num_layers):
            outputs = []
            for d, suffix in enumerate(directions):
                w_ih, _, b_ih, _ = self._weights(layer, suffix)
                seq = input if d == 0 else input.flip(0)
                out, final = self._direction(
                    F.linear(seq, w_ih, b_ih),
                    states[layer * len(directions) + d],
                    layer,
                    suffix,
                    step,
                    alive if d == 0 or alive is None else alive.flip(0),
                )
                outputs.append(out if d == 0 else out.flip(0))
                finals.append(final)
            input = outputs[0] if len(outputs) == 1 else cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                input = F.dropout(input, self.dropout, True)
        return input, finals

    def _prepare(self, input, hx):
        """Time-major input, hx, whether unbatched, and the running mask of a packed batch."""
        if isinstance(input, PackedSequence):
            # as PyTorch: run the batch in its packed (length-sorted) order, hx permuted to it
            padded = padded_sorted(input)
            self._check_input(padded)
            lengths = tensor(sorted_lengths(input.batch_sizes.numpy()))
            steps = tensor(range(padded.shape[0]))
            if hx is not None and input.sorted_indices is not None:
                hx = _permute_hidden(hx, input.sorted_indices)
            return padded, hx, False, steps[:, None, None] < lengths[None, :, None]
        self._check_input(input)
        unbatched = input.dim() == 2
        if unbatched:
            input = input.unsqueeze(1)
            if hx is not None:
                hx = self._batch_hidden(hx)
        elif self.batch_first:
            input = input.transpose(0, 1)
        return input, hx, unbatched, None

    def _batch_hidden(self, hx):
        parts = hx if isinstance(hx, tuple) else (hx,)
        for h in parts:
            if h.dim() != 2:
                raise RuntimeError(
                    f"For unbatched 2-D input, hx should also be 2-D but got {h.dim()}-D tensor"
                )
        batched = tuple(h.unsqueeze(1) for h in parts)
        return batched if isinstance(hx, tuple) else batched[0]

    def _finish(self, output, unbatched, input):
        if isinstance(input, PackedSequence):
            # each step's rows of the sequences still running, concatenated (CatBackward0)
            sizes = input.batch_sizes.numpy()
            data = cat([output[t, : int(n)] for t, n in enumerate(sizes)])
            return PackedSequence(data, input.batch_sizes, input.sorted_indices, input[3])
        if unbatched:
            return output.squeeze(1)
        return output.transpose(0, 1) if self.batch_first else output

    def _zeros(self, input):
        n = self.num_layers * (2 if self.bidirectional else 1)
        return zeros(n, input.shape[1], self.hidden_size, dtype=input.dtype)

    def _forward_hidden(self, input, hx, step):
        """RNN's and GRU's forward: one hidden state per layer and direction."""
        padded, hx, unbatched, alive = self._prepare(input, hx)
        if hx is None:
            hx = self._zeros(padded)
        self._check_hidden(hx, padded.shape[1], "Expected hidden size {}, got {}")
        output, finals = self._layers(padded, list(hx.unbind(0)), step, alive)
        h_n = _unsorted(stack(finals), input)
        return self._finish(output, unbatched, input), h_n.squeeze(1) if unbatched else h_n


def _permute_hidden(hx, indices):
    if isinstance(hx, tuple):
        return tuple(h.index_select(1, indices) for h in hx)
    return hx.index_select(1, indices)


def _unsorted(h_n, input):
    """A final state back in the batch's order (IndexSelectBackward0), for a packed batch
    that was sorted by length."""
    if isinstance(input, PackedSequence) and input.unsorted_indices is not None:
        return h_n.index_select(1, input.unsorted_indices)
    return h_n


class RNN(RNNBase):
    """Matches `torch.nn.RNN`: h' = tanh(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh) (or relu)."""

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        nonlinearity="tanh",
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        device=None,
        dtype=None,
    ):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        self.nonlinearity = nonlinearity
        super().__init__(
            "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            0,
            device,
            dtype,
        )

    def forward(self, input, hx=None):
        return self._forward_hidden(input, hx, rnn_step(self.nonlinearity))


class GRU(RNNBase):
    """Matches `torch.nn.GRU` (gates r, z, n; n uses r * (h W_hnᵀ + b_hn))."""

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_hidden(input, hx, gru_step)


class LSTM(RNNBase):
    """Matches `torch.nn.LSTM` (gates i, f, g, o); returns output, (h_n, c_n)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        # under CPU autocast PyTorch runs an unpacked LSTM as oneDNN's kernel, `_mkldnn_rnn`,
        # on its autocast list: input, state and weights cast to the autocast dtype, so the
        # outputs and states come out in it (See Note [Autocast policy])
        if recording.autocast is None or isinstance(input, PackedSequence):
            return self._run(input, hx)
        weights = list(self.parameters(recurse=False))
        states = () if hx is None else tuple(hx)
        cast = recording.autocast("_mkldnn_rnn", (input, *states, *weights))
        input, states = cast[0], cast[1 : 1 + len(states)]
        self._cast_weights = {id(w): c for w, c in zip(weights, cast[1 + len(states) :])}
        try:
            return self._run(input, states or None)
        finally:
            self._cast_weights = None

    def _run(self, input, hx):
        padded, hx, unbatched, alive = self._prepare(input, hx)
        if hx is None:
            hx = (self._zeros(padded), self._zeros(padded))
        self._check_hidden(hx[0], padded.shape[1], "Expected hidden[0] size {}, got {}")
        self._check_hidden(hx[1], padded.shape[1], "Expected hidden[1] size {}, got {}")
        states = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
        output, finals = self._layers(padded, states, lstm_step, alive)
        h_n = _unsorted(stack([h for h, _ in finals]), input)
        c_n = _unsorted(stack([c for _, c in finals]), input)
        if unbatched:
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return self._finish(output, unbatched, input), (h_n, c_n)
