"""`.data` used to "save memory" in forward(): the first layer never trains."""

import torch
import torch.nn as nn


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 8)
        self.out = nn.Linear(8, 1)

    def forward(self, x):
        h = torch.relu(self.hidden(x)).data  # doctor: graph-cut
        return self.out(h)


torch.manual_seed(0)
model = TwoLayer()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x, y = torch.randn(16, 4), torch.randn(16, 1)
for _ in range(3):
    opt.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()
