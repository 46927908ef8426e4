"""A DDP model whose head one rank re-initializes after wrapping: the replicas part ways."""
# ranks: 2

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 2))
model = DDP(net)
if dist.get_rank() == 1:
    net[2].reset_parameters()  # a new head, on rank 1 only
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for _step in range(4):
    x, y = torch.randn(8, 5), torch.randint(0, 2, (8,))
    opt.zero_grad()
    nn.functional.cross_entropy(model(x), y).backward()
    opt.step()  # doctor: params-differ
dist.destroy_process_group()
