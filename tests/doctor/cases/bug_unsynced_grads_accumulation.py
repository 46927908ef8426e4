"""Gradient accumulation with DDP where every micro-batch runs under no_sync()."""

import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", rank=int(os.environ.get("RANK", 0)), world_size=1)
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1)))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
batches = [(torch.randn(4, 5), torch.randn(4, 1)) for _ in range(8)]
for i, (xb, yb) in enumerate(batches):
    with model.no_sync():
        loss = nn.functional.mse_loss(model(xb), yb) / 4
        loss.backward()
    if (i + 1) % 4 == 0:
        opt.step()  # doctor: unsynced-grads
        opt.zero_grad()
dist.destroy_process_group()
