"""A loss computed in NumPy and wrapped back into a tensor: nothing reaches the model."""

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 3)
y_np = np.random.default_rng(0).normal(size=(16, 1)).astype(np.float32)
for _step in range(3):
    opt.zero_grad()
    pred = model(x)
    error = np.abs(pred.detach().numpy() - y_np).mean()  # doctor: graph-cut
    loss = torch.tensor(error, requires_grad=True)
    loss.backward()
    opt.step()
