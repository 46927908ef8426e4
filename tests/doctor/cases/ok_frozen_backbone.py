"""Transfer learning: a frozen backbone (requires_grad_(False)) and a trained head."""

import torch
import torch.nn as nn

torch.manual_seed(0)
backbone = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU())
backbone.requires_grad_(False)
head = nn.Linear(16, 4)
model = nn.Sequential(backbone, head)
opt = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=1e-3)
x, y = torch.randn(40, 10), torch.randint(0, 4, (40,))
for _epoch in range(3):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
print(backbone[0].weight.grad is None, head.weight.grad is not None)
