"""A validation loop with model.eval() but without torch.no_grad()."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
train = DataLoader(TensorDataset(torch.randn(48, 6), torch.randint(0, 3, (48,))), batch_size=16)
val = DataLoader(TensorDataset(torch.randn(32, 6), torch.randint(0, 3, (32,))), batch_size=16)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
for epoch in range(2):
    model.train()
    for xb, yb in train:
        opt.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        opt.step()
    model.eval()
    val_loss = 0.0
    for xb, yb in val:
        logits = model(xb)  # doctor: eval-builds-graph
        val_loss += criterion(logits, yb).item()
    print(f"epoch {epoch}: val loss {val_loss / len(val):.3f}")
