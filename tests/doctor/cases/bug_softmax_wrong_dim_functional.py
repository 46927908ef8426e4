"""log_softmax over dim 0 of (batch, classes) outputs: normalised across the batch."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(20, 64)
        self.out = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.hidden(x))
        return F.log_softmax(self.out(x), dim=0)  # doctor: softmax-wrong-dim


torch.manual_seed(0)
model = MLP()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
x, y = torch.randn(100, 20), torch.randint(0, 10, (100,))
for _epoch in range(2):
    for i in range(0, 100, 25):
        opt.zero_grad()
        loss = F.nll_loss(model(x[i : i + 25]), y[i : i + 25])
        loss.backward()
        opt.step()
