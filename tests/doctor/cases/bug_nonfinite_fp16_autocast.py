"""float16 autocast: activations that fit float32 overflow float16's 65504 in a product."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(16, 4) * 300000.0  # raw sensor counts, never normalised
y = torch.randn(16, 1)
for _step in range(3):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        out = model(x)  # doctor: nonfinite
        loss = nn.functional.mse_loss(out.float(), y)
    loss.backward()
    opt.step()
