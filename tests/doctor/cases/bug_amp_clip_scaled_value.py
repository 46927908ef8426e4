"""A GPU training script run on CPU (the scaler disables itself here): clip_grad_value_
before unscale_ is still wrong wherever the scaler is on."""

import torch
import torch.nn as nn

use_amp = True
torch.manual_seed(0)
model = nn.Linear(10, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
scaler = torch.cuda.amp.GradScaler(enabled=use_amp)
x, y = torch.randn(32, 10), torch.randn(32, 1)
for _step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)  # doctor: amp-clip-scaled
    scaler.step(opt)
    scaler.update()
