"""An LSTM's (seq, batch, hidden) output reshaped to (batch, seq, hidden) instead of
transposed: every sequence mixes time steps of other samples."""

import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(input_size=5, hidden_size=8)
        self.out = nn.Linear(8, 3)

    def forward(self, x):  # x: (seq, batch, feat)
        h, _ = self.lstm(x)
        seq, batch, hidden = h.shape
        h = h.reshape(batch, seq, hidden)  # doctor: view-as-permute
        return self.out(h)


torch.manual_seed(0)
model = Tagger()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x, tags = torch.randn(7, 4, 5), torch.randint(0, 3, (4, 7))
for _ in range(2):
    opt.zero_grad()
    logits = model(x)
    loss = nn.functional.cross_entropy(logits.reshape(-1, 3), tags.reshape(-1))
    loss.backward()
    opt.step()
