"""A distance with sqrt: finite forward, but its gradient at zero distance is infinite."""

import torch
import torch.nn as nn

torch.manual_seed(0)
embed = nn.Embedding(6, 3)
opt = torch.optim.SGD(embed.parameters(), lr=0.1)
anchor = torch.tensor([0, 1, 2, 3])
positive = torch.tensor([0, 4, 2, 5])  # pairs 0 and 2 are the same item: distance 0
for _step in range(2):
    a, p = embed(anchor), embed(positive)
    distance = torch.sqrt(((a - p) ** 2).sum(dim=1))  # doctor: nonfinite
    loss = distance.mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(embed.weight.isfinite().all().item())
