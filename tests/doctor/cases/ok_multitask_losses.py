"""Near-miss of the multi-task case: both task losses are summed, each is logged with
.item(), and the outputs are kept for metrics with .detach().cpu().numpy()."""

import numpy as np
import torch
import torch.nn as nn


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.cls_head = nn.Linear(16, 3)
        self.reg_head = nn.Linear(16, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.cls_head(h), self.reg_head(h)


torch.manual_seed(0)
model = TwoHeads()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x, yc, yr = torch.randn(32, 8), torch.randint(0, 3, (32,)), torch.randn(32, 1)
scores = []
for _ in range(4):
    logits, reg = model(x)
    loss_cls = nn.functional.cross_entropy(logits, yc)
    loss_reg = nn.functional.mse_loss(reg, yr)
    loss = loss_cls + 0.5 * loss_reg
    opt.zero_grad()
    loss.backward()
    opt.step()
    scores.append(logits.detach().cpu().numpy())
    print(f"cls {loss_cls.item():.3f} reg {loss_reg.item():.3f}")
print(np.concatenate(scores).shape)
