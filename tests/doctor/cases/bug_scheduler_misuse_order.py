"""scheduler.step() at the top of each epoch, before any optimizer.step(): the schedule's
first learning rate is skipped."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(5, 1)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
x, y = torch.randn(20, 5), torch.randn(20, 1)
for _epoch in range(4):
    sched.step()  # doctor: scheduler-misuse
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
