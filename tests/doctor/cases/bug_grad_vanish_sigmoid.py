"""A deep sigmoid network: the first layers get almost no gradient."""

import torch
import torch.nn as nn

torch.manual_seed(0)
blocks = []
for _i in range(12):
    blocks += [nn.Linear(16, 16), nn.Sigmoid()]
model = nn.Sequential(*blocks, nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 16), torch.randn(32, 1)
for _step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()  # doctor: grad-vanish
    opt.step()
