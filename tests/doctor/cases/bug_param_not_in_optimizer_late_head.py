"""A new classification head is attached after the optimizer was built from the
pretrained model: the head gets gradients but never changes."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential()
model.add_module("backbone", nn.Sequential(nn.Linear(12, 24), nn.ReLU()))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
model.classifier = nn.Linear(24, 5)  # doctor: param-not-in-optimizer
x, y = torch.randn(40, 12), torch.randint(0, 5, (40,))
for epoch in range(3):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    print(epoch, loss.item())
