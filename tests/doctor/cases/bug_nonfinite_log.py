"""A hand-written cross-entropy: log of probabilities that ReLU made exactly zero."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(5, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 5)
target = nn.functional.one_hot(torch.randint(0, 4, (8,)), 4).float()
for _step in range(2):
    scores = torch.relu(model(x))
    probs = scores / (scores.sum(dim=1, keepdim=True) + 1e-6)
    loss = -(target * torch.log(probs)).sum(dim=1).mean()  # doctor: nonfinite
    opt.zero_grad()
    loss.backward()
    opt.step()
print(loss.item())
