"""A hand-written squared error between a (N, 1) prediction and a (N,) target."""

import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 16), nn.ReLU())
        self.head = nn.Linear(16, 1)

    def forward(self, x):
        return self.head(self.body(x))


torch.manual_seed(0)
model = Regressor()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(40, 3)
target = x.sum(dim=1)
for _ in range(5):
    opt.zero_grad()
    loss = ((model(x) - target) ** 2).mean()  # doctor: broadcast-loss
    loss.backward()
    opt.step()
