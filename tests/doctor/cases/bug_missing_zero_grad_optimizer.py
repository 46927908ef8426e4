"""A training loop without optimizer.zero_grad(): every step adds the earlier gradients."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X, Y = torch.randn(64, 5), torch.randn(64, 1)
loader = DataLoader(TensorDataset(X, Y), batch_size=16, shuffle=True)
model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
criterion = nn.MSELoss()
for _epoch in range(2):
    for xb, yb in loader:
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()  # doctor: missing-zero-grad
