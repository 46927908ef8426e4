"""set_epoch at the start of each epoch; an evaluation sampler without shuffling, every epoch."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

torch.manual_seed(0)
train = TensorDataset(torch.randn(40, 6), torch.randint(0, 3, (40,)))
val = TensorDataset(torch.randn(12, 6), torch.randint(0, 3, (12,)))
train_sampler = DistributedSampler(train, num_replicas=2, rank=1)
train_loader = DataLoader(train, batch_size=5, sampler=train_sampler)
val_loader = DataLoader(val, batch_size=6, sampler=DistributedSampler(val, 2, 1, shuffle=False))
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    train_sampler.set_epoch(epoch)
    model.train()
    for xb, yb in train_loader:
        opt.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        correct = sum((model(xb).argmax(1) == yb).sum().item() for xb, yb in val_loader)
