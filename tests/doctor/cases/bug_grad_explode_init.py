"""A deep linear stack initialised with a far too large scale."""

import torch
import torch.nn as nn

torch.manual_seed(0)
layers = []
for _i in range(6):
    layer = nn.Linear(32, 32)
    nn.init.normal_(layer.weight, std=0.6)
    layers += [layer, nn.LeakyReLU()]
model = nn.Sequential(*layers, nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x, y = torch.randn(16, 32), torch.randn(16, 1)
for _step in range(2):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()  # doctor: grad-explode
    opt.step()
