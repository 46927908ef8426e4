"""Predictions collected after training, with grad mode still on."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 10), nn.ReLU(), nn.Linear(10, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(40, 3), torch.randint(0, 2, (40,))
for _step in range(3):
    opt.zero_grad()
    nn.functional.cross_entropy(model(x), y).backward()
    opt.step()


def predict(batch):
    return model(batch).argmax(dim=1)  # doctor: eval-builds-graph


test = torch.randn(30, 3)
predictions = [predict(chunk) for chunk in test.split(10)]
print(torch.cat(predictions).tolist())
