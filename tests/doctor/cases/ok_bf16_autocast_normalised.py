"""bfloat16 autocast of normalised inputs: low precision, nothing overflows."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
raw = torch.randn(16, 4) * 300000.0
x = (raw - raw.mean(0)) / raw.std(0)  # normalised before the model
y = torch.randn(16, 1)
for _step in range(3):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(x)
        loss = nn.functional.mse_loss(out.float(), y)
    loss.backward()
    opt.step()
