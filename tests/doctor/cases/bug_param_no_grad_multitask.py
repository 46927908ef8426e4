"""A multi-task model whose second task loss is computed and logged but left out of the
loss that is backpropagated: its head never gets a gradient (the .item() is not the cause)."""

import torch
import torch.nn as nn


class MultiTask(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.cls_head = nn.Linear(16, 3)
        self.reg_head = nn.Linear(16, 1)  # doctor: param-no-grad

    def forward(self, x):
        h = self.trunk(x)
        return self.cls_head(h), self.reg_head(h)


torch.manual_seed(0)
model = MultiTask()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x, yc, yr = torch.randn(32, 8), torch.randint(0, 3, (32,)), torch.randn(32, 1)
for _epoch in range(4):
    logits, reg = model(x)
    loss_cls = nn.functional.cross_entropy(logits, yc)
    loss_reg = nn.functional.mse_loss(reg, yr)
    loss = loss_cls  # forgot + loss_reg
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"cls {loss_cls.item():.3f} reg {loss_reg.item():.3f}")
