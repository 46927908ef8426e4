"""Hidden layers kept in a Python list: nn.Module does not register them, so
model.parameters() (and the optimizer) miss them, though they get gradients."""

import torch
import torch.nn as nn


class DeepMLP(nn.Module):
    def __init__(self, sizes=(6, 16, 16, 2)):
        super().__init__()
        pairs = zip(sizes[:-2], sizes[1:-1])
        self.layers = [nn.Linear(a, b) for a, b in pairs]  # doctor: param-not-in-optimizer
        self.head = nn.Linear(sizes[-2], sizes[-1])

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return self.head(x)


torch.manual_seed(0)
model = DeepMLP()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(32, 6), torch.randint(0, 2, (32,))
for _ in range(3):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
