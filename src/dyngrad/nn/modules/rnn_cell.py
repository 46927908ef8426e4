"""Recurrent cells `RNNCell`, `LSTMCell`, `GRUCell` over their base `RNNCellBase`: one time
step, which the layers reuse."""

from __future__ import annotations

import math

from ...ops.creation.factories import empty, zeros
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def rnn_step(nonlinearity):
    act = F.tanh if nonlinearity == "tanh" else F.relu

    def step(gi, h, w_hh, b_hh):
        return act(gi + F.linear(h, w_hh, b_hh))

    return step


def gru_step(gi, h, w_hh, b_hh):
    gh = F.linear(h, w_hh, b_hh)
    i_r, i_z, i_n = gi.chunk(3, -1)
    h_r, h_z, h_n = gh.chunk(3, -1)
    r = (i_r + h_r).sigmoid()
    z = (i_z + h_z).sigmoid()
    n = (i_n + r * h_n).tanh()
    return (h - n) * z + n  # PyTorch's order (its fused CPU cell): h' = (1 - z) n + z h


def lstm_step(gi, state, w_hh, b_hh):
    h, c = state
    gates = gi + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c


class RNNCellBase(Module):
    """Matches `torch.nn.RNNCellBase`: the weights of `num_chunks` gates and their init."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        gate_size = num_chunks * hidden_size
        self.weight_ih = Parameter(empty(gate_size, input_size, dtype=dtype, device=device))
        self.weight_hh = Parameter(empty(gate_size, hidden_size, dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(empty(gate_size, dtype=dtype, device=device))
            self.bias_hh = Parameter(empty(gate_size, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        return s + (f", nonlinearity={nonlinearity}" if nonlinearity != "tanh" else "")

    def _check(self, input) -> None:
        if input.dim() not in (1, 2):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead"
            )
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.shape[-1]} "
                f"expected {self.input_size}"
            )

    def _run(self, input, state, step):
        self._check(input)
        unbatched = input.dim() == 1
        if unbatched:
            input = input.unsqueeze(0)
            state = (
                tuple(s.unsqueeze(0) for s in state)
                if isinstance(state, tuple)
                else (None if state is None else state.unsqueeze(0))
            )
        gi = F.linear(input, self.weight_ih, self.bias_ih)
        out = step(gi, state, self.weight_hh, self.bias_hh)
        if unbatched:
            out = tuple(o.squeeze(0) for o in out) if isinstance(out, tuple) else out.squeeze(0)
        return out

    def _zeros(self, input):
        batch = () if input.dim() == 1 else (input.shape[0],)
        return zeros(*batch, self.hidden_size, dtype=input.dtype)


class RNNCell(RNNCellBase):
    def __init__(
        self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None
    ):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        hx = self._zeros(input) if hx is None else hx
        return self._run(input, hx, rnn_step(self.nonlinearity))


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        hx = self._zeros(input) if hx is None else hx
        return self._run(input, hx, gru_step)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        if hx is None:
            hx = (self._zeros(input), self._zeros(input))
        return self._run(input, tuple(hx), lstm_step)
