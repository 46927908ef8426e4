"""Near-misses of broadcast-loss: (N,) against (N,), (N, 1) against (N, 1), a squeezed
prediction, a hand-written error of matching shapes, and a pairwise distance on purpose."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x = torch.randn(32, 4)
y = x[:, 0] - x[:, 1]
for _ in range(3):
    pred = model(x)
    loss = F.mse_loss(pred.squeeze(1), y)
    loss = loss + F.l1_loss(pred, y.unsqueeze(1)) + ((pred.view(-1) - y) ** 2).mean()
    emb = pred.squeeze(1)
    pairwise = (emb.unsqueeze(1) - emb).abs().mean()
    loss = loss + 0.01 * pairwise
    opt.zero_grad()
    loss.backward()
    opt.step()
