"""Gradient clipping placed after optimizer.step(): the step never sees clipped gradients."""

import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.RNN(input_size=3, hidden_size=8, batch_first=True)
head = nn.Linear(8, 1)
params = list(rnn.parameters()) + list(head.parameters())
opt = torch.optim.Adam(params, lr=1e-2)
seq, target = torch.randn(4, 6, 3), torch.randn(4, 1)
for _step in range(3):
    opt.zero_grad()
    out, h = rnn(seq)
    loss = nn.functional.mse_loss(head(out[:, -1]), target)
    loss.backward()
    opt.step()
    nn.utils.clip_grad_norm_(params, max_norm=1.0)  # doctor: clip-after-step
