"""Rank 0 of two, sharded with DistributedSampler, and no set_epoch(): every epoch the same."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

torch.manual_seed(0)
data = TensorDataset(torch.randn(40, 6), torch.randint(0, 3, (40,)))
sampler = DistributedSampler(data, num_replicas=2, rank=0)
loader = DataLoader(data, batch_size=5, sampler=sampler)
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _epoch in range(3):
    for xb, yb in loader:  # doctor: missing-set-epoch
        opt.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        opt.step()
