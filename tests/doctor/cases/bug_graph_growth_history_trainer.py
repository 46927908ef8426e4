"""A Trainer class that keeps a dict of history lists (self.history["loss"]) of loss tensors."""

import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=1e-2)
        self.history = {"loss": [], "pred": []}

    def step(self, x, y):
        self.opt.zero_grad()
        pred = self.model(x)
        loss = nn.functional.mse_loss(pred, y)
        loss.backward()
        self.opt.step()
        self.history["loss"].append(loss)  # doctor: graph-growth
        return loss.item()


torch.manual_seed(0)
trainer = Trainer(nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1)))
x, y = torch.randn(32, 4), torch.randn(32, 1)
for _epoch in range(10):
    trainer.step(x, y)
