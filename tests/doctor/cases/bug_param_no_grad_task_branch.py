"""Task heads in an nn.ModuleDict on a shared encoder; every task's loss is computed and
logged, but only the first task's is backpropagated: head "depth" never trains."""

import torch
import torch.nn as nn

TASKS = {"segment": 4, "depth": 1}


class SharedEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(6, 12), nn.ReLU())
        heads = {name: nn.Linear(12, n) for name, n in TASKS.items()}
        self.heads = nn.ModuleDict(heads)  # doctor: param-no-grad

    def forward(self, x):
        h = self.encoder(x)
        return {name: head(h) for name, head in self.heads.items()}


torch.manual_seed(0)
model = SharedEncoder()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(16, 6)
targets = {"segment": torch.randint(0, 4, (16,)), "depth": torch.randn(16, 1)}
for _step in range(4):
    out = model(x)
    losses = {
        "segment": nn.functional.cross_entropy(out["segment"], targets["segment"]),
        "depth": nn.functional.l1_loss(out["depth"], targets["depth"]),
    }
    total = losses["segment"]  # meant: sum(losses.values())
    opt.zero_grad()
    total.backward()
    opt.step()
    print({name: round(value.item(), 3) for name, value in losses.items()})
