"""Two losses share a trunk: the first backward keeps the graph for the second, once."""

import torch
import torch.nn as nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(6, 12), nn.Tanh())
head_a, head_b = nn.Linear(12, 1), nn.Linear(12, 3)
params = [*trunk.parameters(), *head_a.parameters(), *head_b.parameters()]
opt = torch.optim.SGD(params, lr=0.05)
for _step in range(4):
    x, ya, yb = torch.randn(10, 6), torch.randn(10, 1), torch.randint(0, 3, (10,))
    shared = trunk(x)
    loss_a = nn.functional.mse_loss(head_a(shared), ya)
    loss_b = nn.functional.cross_entropy(head_b(shared), yb)
    opt.zero_grad()
    loss_a.backward(retain_graph=True)
    loss_b.backward()
    opt.step()
