"""Two ranks shard the data, but the model is never wrapped in DDP: each trains its own."""
# ranks: 2

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

dist.init_process_group("gloo")
torch.manual_seed(0)
data = TensorDataset(torch.randn(64, 5), torch.randn(64, 1))
sampler = DistributedSampler(data)
loader = DataLoader(data, batch_size=8, sampler=sampler)
model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    sampler.set_epoch(epoch)
    for xb, yb in loader:
        opt.zero_grad()
        nn.functional.mse_loss(model(xb), yb).backward()
        opt.step()  # doctor: params-differ
dist.destroy_process_group()
