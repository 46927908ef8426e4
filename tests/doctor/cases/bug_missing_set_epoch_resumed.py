"""Resuming from a checkpoint: set_epoch gets the start epoch, once, before the loop."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def train_one_epoch(model, loader, opt):
    for xb, yb in loader:  # doctor: missing-set-epoch
        opt.zero_grad()
        nn.functional.mse_loss(model(xb), yb).backward()
        opt.step()


torch.manual_seed(0)
data = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
sampler = DistributedSampler(data, num_replicas=4, rank=2, seed=7)
loader = DataLoader(data, batch_size=4, sampler=sampler)
model = nn.Linear(4, 1)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
start_epoch = 5
sampler.set_epoch(start_epoch)
for _epoch in range(start_epoch, start_epoch + 3):
    train_one_epoch(model, loader, opt)
