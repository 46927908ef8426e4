"""A running mean of features used as a target and never detached; retain_graph=True
silences the error, and each backward now runs through every earlier batch."""

import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(6, 4)
opt = torch.optim.SGD(encoder.parameters(), lr=0.01)
center = torch.zeros(4)
for _step in range(6):
    features = encoder(torch.randn(8, 6))
    center = 0.9 * center + 0.1 * features.mean(dim=0)
    loss = ((features - center) ** 2).mean()
    opt.zero_grad()
    loss.backward(retain_graph=True)  # doctor: retain-graph-growth
    opt.step()
