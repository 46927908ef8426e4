"""Evaluation under no_grad, but the model was never switched to eval(): dropout stays on."""

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.5))
        self.out = nn.Linear(32, 2)

    def forward(self, x):
        return self.out(self.body(x))


torch.manual_seed(0)
net = Net()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
x, y = torch.randn(64, 8), torch.randint(0, 2, (64,))
for epoch in range(2):
    opt.zero_grad()
    nn.functional.cross_entropy(net(x), y).backward()
    opt.step()
    with torch.no_grad():
        acc = (net(x).argmax(1) == y).float().mean()  # doctor: train-mode-in-eval
    print(f"epoch {epoch}: accuracy {acc.item():.2f}")
