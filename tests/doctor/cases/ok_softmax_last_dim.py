"""Near-misses of softmax-wrong-dim: softmax over dim=-1 of (N, C) and over the keys of
(B, T, T) attention scores, log_softmax(dim=1), and softmax of a 1-D vector over dim 0."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Attend(nn.Module):
    def __init__(self, dim=8, classes=4):
        super().__init__()
        self.q, self.k = nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.pool = nn.Parameter(torch.zeros(5))
        self.out = nn.Linear(dim, classes)

    def forward(self, x):
        scores = self.q(x) @ self.k(x).transpose(1, 2) / 8**0.5
        h = F.softmax(scores, dim=-1) @ x
        weights = torch.softmax(self.pool, dim=0)
        return self.out((h * weights[None, :, None]).sum(1))


torch.manual_seed(0)
model = Attend()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x, y = torch.randn(6, 5, 8), torch.randint(0, 4, (6,))
for _ in range(3):
    logits = model(x)
    loss = F.nll_loss(F.log_softmax(logits, dim=1), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(F.softmax(logits, dim=-1).argmax(-1).tolist())
