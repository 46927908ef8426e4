"""model.zero_grad(), a validation loss under no_grad driving ReduceLROnPlateau, and the
best weights kept as a state_dict copy."""

import copy

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1)
x, y = torch.randn(32, 3), torch.randn(32, 1)
x_val, y_val = torch.randn(16, 3), torch.randn(16, 1)
best, best_state = float("inf"), None
for _ in range(5):
    model.train()
    model.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()
    model.eval()
    with torch.no_grad():
        val_loss = nn.functional.mse_loss(model(x_val), y_val)
    scheduler.step(val_loss)
    if val_loss.item() < best:
        best, best_state = val_loss.item(), copy.deepcopy(model.state_dict())
model.load_state_dict(best_state)
