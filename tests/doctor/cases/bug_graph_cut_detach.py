"""An encoder whose output is detached inside forward(): the encoder never trains."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 16), nn.Tanh())
        self.head = nn.Linear(16, 1)

    def forward(self, x):
        features = self.encoder(x).detach()  # doctor: graph-cut
        return self.head(features)


torch.manual_seed(0)
model = Model()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = torch.randn(20, 8), torch.randn(20, 1)
for epoch in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: {loss.item():.4f}")
