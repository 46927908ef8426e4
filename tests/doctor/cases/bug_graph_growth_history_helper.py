"""A logging helper appends the loss tensor to a dict of lists: the graphs stay alive."""

import torch
import torch.nn as nn


def record(history, name, value):
    history.setdefault(name, []).append(value)  # doctor: graph-growth


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
x, y = torch.randn(32, 4), torch.randn(32, 1)
logs = {}
for _epoch in range(8):
    opt.zero_grad()
    out = model(x)
    loss = nn.functional.mse_loss(out, y)
    loss.backward()
    opt.step()
    record(logs, "train_loss", loss)
print(len(logs["train_loss"]))
