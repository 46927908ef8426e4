"""clip_grad_value_ after the step, inside a helper that also logs."""

import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_value_

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=2)


def update(loss):
    opt.zero_grad()
    loss.backward()
    opt.step()
    clip_grad_value_(model.parameters(), clip_value=0.5)  # doctor: clip-after-step
    scheduler.step()


x, y = torch.randn(10, 4), torch.randint(0, 2, (10,))
for _step in range(3):
    update(nn.functional.cross_entropy(model(x), y))
