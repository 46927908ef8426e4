"""The optimizer steps inside the no_sync() block, right after its backward."""

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 6)
        self.head = nn.Linear(6, 2)

    def forward(self, x):
        return self.head(self.body(x).relu())


def main():
    dist.init_process_group("gloo", rank=0, world_size=1)
    torch.manual_seed(0)
    model = DDP(Net())
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(3):
        x, y = torch.randn(8, 6), torch.randint(0, 2, (8,))
        with model.no_sync():
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            opt.step()  # doctor: unsynced-grads
    dist.destroy_process_group()


main()
