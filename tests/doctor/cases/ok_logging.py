"""Logging done right: .item(), .detach() copies in a history, a NumPy copy for metrics."""

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = torch.randn(32, 4), torch.randn(32, 1)
losses, predictions = [], []
running = 0.0
for _step in range(8):
    opt.zero_grad()
    pred = model(x)
    loss = nn.functional.mse_loss(pred, y)
    loss.backward()
    opt.step()
    running += loss.item()
    losses.append(loss.detach())
    predictions.append(pred.detach().numpy().copy())
print(f"mean {running / 8:.3f}", len(losses), np.stack(predictions).shape)
