"""Per-batch losses weighted by the batch size kept for the epoch mean: the products keep
the graphs."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(4)]
epoch_losses = []
for epoch in range(3):
    for xb, yb in data:
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()
        epoch_losses.append(loss * xb.size(0))  # doctor: graph-growth
    print(epoch, len(epoch_losses))
