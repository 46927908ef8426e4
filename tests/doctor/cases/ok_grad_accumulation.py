"""Gradient accumulation: four micro-batches per step, zero_grad after each step."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 10), nn.ReLU(), nn.Linear(10, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
accumulation = 4
batches = [(torch.randn(4, 5), torch.randn(4, 1)) for _ in range(12)]
opt.zero_grad()
for i, (xb, yb) in enumerate(batches):
    loss = nn.functional.mse_loss(model(xb), yb) / accumulation
    loss.backward()
    if (i + 1) % accumulation == 0:
        opt.step()
        opt.zero_grad(set_to_none=False)
