"""A running sum built before backward: each iteration links its graph to all earlier ones."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(5, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
data = [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(6)]
epoch_loss = torch.zeros(())
for xb, yb in data:
    loss = ((model(xb) - yb) ** 2).mean()
    epoch_loss = epoch_loss + loss  # doctor: graph-growth
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"epoch loss {epoch_loss.item():.3f}")
