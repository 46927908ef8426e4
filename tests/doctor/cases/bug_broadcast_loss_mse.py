"""A regression net outputs (N, 1) and the target is (N,): MSELoss broadcasts to (N, N)."""

import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.randn(200, 5)
y = X @ torch.tensor([1.0, -2.0, 0.5, 0.0, 3.0]) + 0.1 * torch.randn(200)
model = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 1))
criterion = nn.MSELoss()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(3):
    for i in range(0, 200, 50):
        xb, yb = X[i : i + 50], y[i : i + 50]
        pred = model(xb)
        loss = criterion(pred, yb)  # doctor: broadcast-loss
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, loss.item())
