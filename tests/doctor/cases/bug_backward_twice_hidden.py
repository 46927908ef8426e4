"""An RNN-style loop that carries the hidden state without detaching it."""

import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.RNNCell(2, 5)
readout = nn.Linear(5, 1)
opt = torch.optim.SGD(list(cell.parameters()) + list(readout.parameters()), lr=0.01)
h = torch.zeros(3, 5)
for _step in range(4):
    x, y = torch.randn(3, 2), torch.randn(3, 1)
    h = cell(x, h)
    loss = ((readout(h) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()  # doctor: backward-twice
    opt.step()
