"""Near-misses of a history list: (epoch, loss.item()) tuples, a dict of detached losses in a
Trainer, outputs detached for an epoch metric, a best loss kept as a number, and losses kept
for gradient accumulation and cleared at each step."""

import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=1e-2)
        self.history = {"loss": [], "outputs": []}

    def step(self, x, y):
        self.opt.zero_grad()
        out = self.model(x)
        loss = nn.functional.mse_loss(out, y)
        loss.backward()
        self.opt.step()
        self.history["loss"].append(loss.detach())
        self.history["outputs"].append(out.detach())
        return loss


torch.manual_seed(0)
trainer = Trainer(nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1)))
x, y = torch.randn(32, 4), torch.randn(32, 1)
log, best, pending = [], float("inf"), []
for epoch in range(8):
    loss = trainer.step(x, y)
    log.append((epoch, loss.item()))
    best = min(best, loss.item())
    for i in range(0, 32, 8):
        pending.append(nn.functional.mse_loss(trainer.model(x[i : i + 8]), y[i : i + 8]))
    trainer.opt.zero_grad()
    torch.stack(pending).mean().backward()
    trainer.opt.step()
    pending.clear()
print(len(log), best, torch.cat(trainer.history["outputs"]).shape)
