"""A classifier that ends in nn.Softmax, trained with CrossEntropyLoss (which applies
log_softmax itself): the outputs are squashed twice and training stalls."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4), nn.Softmax(dim=1))
criterion = nn.CrossEntropyLoss()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(64, 10), torch.randint(0, 4, (64,))
for epoch in range(3):
    for i in range(0, 64, 16):
        opt.zero_grad()
        loss = criterion(model(x[i : i + 16]), y[i : i + 16])  # doctor: double-softmax
        loss.backward()
        opt.step()
    print(epoch, loss.item())
