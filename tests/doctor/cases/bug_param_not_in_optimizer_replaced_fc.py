"""Transfer learning: the optimizer is built, then the classifier is replaced by a new
layer for 4 classes; the new layer gets gradients but is not in the optimizer (and the old
one, still in it, gets none: one finding, not two)."""

import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(10, 20), nn.ReLU())
        self.fc = nn.Linear(20, 100)

    def forward(self, x):
        return self.fc(self.features(x))


torch.manual_seed(0)
model = Backbone()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
model.fc = nn.Linear(20, 4)  # doctor: param-not-in-optimizer
x, y = torch.randn(16, 10), torch.randint(0, 4, (16,))
for _ in range(3):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
