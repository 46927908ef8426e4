"""Gradient accumulation with DDP: no_sync() for all but the last micro-batch of each step."""

import contextlib

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", rank=0, world_size=1)
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1)))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
accumulation = 4
batches = [(torch.randn(4, 5), torch.randn(4, 1)) for _ in range(8)]
for i, (xb, yb) in enumerate(batches):
    last = (i + 1) % accumulation == 0
    with contextlib.nullcontext() if last else model.no_sync():
        (nn.functional.mse_loss(model(xb), yb) / accumulation).backward()
    if last:
        opt.step()
        opt.zero_grad()
dist.destroy_process_group()
