"""A learning rate too high for the data's scale: each step overshoots more."""

import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(64, 4) * 3
y = x @ torch.tensor([[1.0], [2.0], [-1.0], [0.5]])
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(8):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()  # doctor: grad-explode
    opt.step()
    print(step, loss.item())
