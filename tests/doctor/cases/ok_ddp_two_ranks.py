"""DDP on two ranks: sharded data, set_epoch, accumulation with no_sync, evaluation on rank 0."""
# ranks: 2

import contextlib

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

dist.init_process_group("gloo")
torch.manual_seed(dist.get_rank())  # different draws: DDP still starts from rank 0's weights
data = TensorDataset(torch.randn(48, 5), torch.randint(0, 3, (48,)))
sampler = DistributedSampler(data, seed=1)
loader = DataLoader(data, batch_size=6, sampler=sampler)
model = DDP(nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3)))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(2):
    sampler.set_epoch(epoch)
    for i, (xb, yb) in enumerate(loader):
        last = i % 2 == 1
        with contextlib.nullcontext() if last else model.no_sync():
            nn.functional.cross_entropy(model(xb), yb).backward()
        if last:
            opt.step()
            opt.zero_grad()
if dist.get_rank() == 0:
    with torch.no_grad():
        accuracy = (model.module(data.tensors[0]).argmax(1) == data.tensors[1]).float().mean()
dist.destroy_process_group()
