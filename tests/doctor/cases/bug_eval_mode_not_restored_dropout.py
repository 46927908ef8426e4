"""Validation calls model.eval() at the end of each epoch and the next epoch trains on in
eval mode: dropout is off for every epoch after the first."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x_train, y_train = torch.randn(64, 10), torch.randint(0, 2, (64,))
x_val, y_val = torch.randn(16, 10), torch.randint(0, 2, (16,))
model.train()
for epoch in range(3):
    for i in range(0, 64, 16):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x_train[i : i + 16]), y_train[i : i + 16])
        loss.backward()
        opt.step()
    model.eval()  # doctor: eval-mode-not-restored
    with torch.no_grad():
        val_acc = (model(x_val).argmax(1) == y_val).float().mean()
    print(f"epoch {epoch}: val acc {val_acc.item():.2f}")
