"""A long sequence in chunks: the hidden state carries the whole history, kept by
retain_graph=True, so each chunk's backward goes back to the first chunk."""

import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.GRUCell(3, 8)
readout = nn.Linear(8, 1)
params = list(cell.parameters()) + list(readout.parameters())
opt = torch.optim.Adam(params, lr=1e-3)
sequence, targets = torch.randn(6, 4, 3), torch.randn(6, 4, 1)
h = torch.zeros(4, 8)
opt.zero_grad()
for t in range(6):
    h = cell(sequence[t], h)
    loss = nn.functional.mse_loss(readout(h), targets[t])
    loss.backward(retain_graph=True)  # doctor: retain-graph-growth
opt.step()
