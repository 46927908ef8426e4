"""A history of (epoch, loss) tuples: each loss tensor keeps its iteration's graph."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
x, y = torch.randn(32, 4), torch.randn(32, 1)
history = []
for epoch in range(10):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    history.append((epoch, loss))  # doctor: graph-growth
print(len(history))
