"""A deep tanh network with a tiny initialisation: the signal and its gradient shrink."""

import torch
import torch.nn as nn


class Deep(nn.Module):
    def __init__(self, depth=10, width=24):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))
        for layer in self.layers:
            nn.init.normal_(layer.weight, std=0.05)

    def forward(self, x):
        for layer in self.layers:
            x = torch.tanh(layer(x))
        return x.sum(dim=1, keepdim=True)


torch.manual_seed(0)
model = Deep()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 24), torch.randn(16, 1)
for _step in range(3):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()  # doctor: grad-vanish
    opt.step()
