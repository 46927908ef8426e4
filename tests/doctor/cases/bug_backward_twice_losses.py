"""Two losses on one forward, each with its own backward: the second finds the graph freed."""

import torch
import torch.nn as nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(6, 12), nn.Tanh())
head_a, head_b = nn.Linear(12, 1), nn.Linear(12, 3)
x, ya, yb = torch.randn(10, 6), torch.randn(10, 1), torch.randint(0, 3, (10,))
shared = trunk(x)
loss_a = nn.functional.mse_loss(head_a(shared), ya)
loss_b = nn.functional.cross_entropy(head_b(shared), yb)
loss_a.backward()
loss_b.backward()  # doctor: backward-twice
