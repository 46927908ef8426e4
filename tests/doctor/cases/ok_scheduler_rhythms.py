"""Near-misses of scheduler-misuse: OneCycleLR, a linear warm-up (LambdaLR) and a cosine
with T_max of all batches stepped every batch; StepLR and ExponentialLR stepped once per
epoch after the batch loop; full-batch training where each step is an epoch."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
EPOCHS = 3
loader = DataLoader(TensorDataset(torch.randn(64, 6), torch.randn(64, 1)), batch_size=8)
nets = [nn.Linear(6, 1) for _ in range(5)]
opts = [torch.optim.SGD(net.parameters(), lr=0.1) for net in nets]
per_batch = [
    torch.optim.lr_scheduler.OneCycleLR(opts[0], max_lr=0.1, total_steps=EPOCHS * len(loader)),
    torch.optim.lr_scheduler.LambdaLR(opts[1], lambda step: min(1.0, (step + 1) / 10)),
    torch.optim.lr_scheduler.CosineAnnealingLR(opts[2], T_max=EPOCHS * len(loader)),
]
per_epoch = [
    torch.optim.lr_scheduler.StepLR(opts[3], step_size=2, gamma=0.5),
    torch.optim.lr_scheduler.ExponentialLR(opts[4], gamma=0.9),
]
for _epoch in range(EPOCHS):
    for x, y in loader:
        for net, opt in zip(nets, opts):
            opt.zero_grad()
            nn.functional.mse_loss(net(x), y).backward()
            opt.step()
        for sched in per_batch:
            sched.step()
    for sched in per_epoch:
        sched.step()

model = nn.Linear(6, 1)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.1)
x, y = torch.randn(32, 6), torch.randn(32, 1)
for _epoch in range(6):
    opt.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()
    sched.step()
