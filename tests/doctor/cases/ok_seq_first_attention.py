"""Near-miss of softmax-wrong-dim: a sequence-first (time, batch, features) encoder whose
attention normalises its (time, batch) scores over time, dim 0, on purpose."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class AttentionPool(nn.Module):
    def __init__(self, features=6, hidden=10, classes=3):
        super().__init__()
        self.rnn = nn.GRU(features, hidden)
        self.score = nn.Linear(hidden, 1)
        self.out = nn.Linear(hidden, classes)

    def forward(self, x):  # (time, batch, features)
        h, _ = self.rnn(x)
        weights = F.softmax(self.score(h).squeeze(2), dim=0)  # over time
        return self.out((weights.unsqueeze(2) * h).sum(0))


torch.manual_seed(0)
model = AttentionPool()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x, y = torch.randn(5, 5, 6), torch.randint(0, 3, (5,))
for _ in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
