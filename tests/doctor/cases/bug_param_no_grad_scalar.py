"""A learnable temperature that forward() shadows with a constant."""

import torch
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.query = nn.Linear(dim, dim)
        self.temperature = nn.Parameter(torch.ones(1))  # doctor: param-no-grad

    def forward(self, keys):
        temperature = 1.0  # meant self.temperature
        scores = self.query(keys) @ keys.T / temperature
        return scores.softmax(dim=-1)


torch.manual_seed(0)
model = Scorer(4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
keys = torch.randn(5, 4)
target = torch.eye(5)
for _step in range(3):
    opt.zero_grad()
    loss = ((model(keys) - target) ** 2).sum()
    loss.backward()
    opt.step()
