"""inference_mode() without model.eval(): batch norm uses and updates batch statistics."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = torch.randn(32, 4), torch.randn(32, 1)
for _step in range(3):
    opt.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()

with torch.inference_mode():
    sample = torch.randn(2, 4)
    print(model(sample))  # doctor: train-mode-in-eval
