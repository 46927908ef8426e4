"""A critic trained with a gradient penalty (autograd.grad with create_graph=True)."""

import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
for _step in range(4):
    real, fake = torch.randn(8, 2) + 1, torch.randn(8, 2)
    alpha = torch.rand(8, 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    (grads,) = torch.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)
    penalty = ((grads.norm(2, dim=1) - 1) ** 2).mean()
    loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
    opt.zero_grad()
    loss.backward()
    opt.step()
