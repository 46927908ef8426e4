"""Truncated backpropagation through time: the hidden state is detached between chunks."""

import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.GRUCell(3, 8)
readout = nn.Linear(8, 1)
params = [*cell.parameters(), *readout.parameters()]
opt = torch.optim.Adam(params, lr=1e-3)
sequence, targets = torch.randn(6, 4, 3), torch.randn(6, 4, 1)
h = torch.zeros(4, 8)
for t in range(6):
    h = h.detach()
    h = cell(sequence[t], h)
    loss = nn.functional.mse_loss(readout(h), targets[t])
    opt.zero_grad()
    loss.backward()
    opt.step()
