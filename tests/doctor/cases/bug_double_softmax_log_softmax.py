"""log_softmax in forward() and F.cross_entropy on top: log_softmax is applied twice."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class TextClassifier(nn.Module):
    def __init__(self, vocab=50, dim=12, classes=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.out = nn.Linear(dim, classes)

    def forward(self, tokens):
        return F.log_softmax(self.out(self.embed(tokens).mean(1)), dim=-1)


torch.manual_seed(0)
model = TextClassifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
tokens, labels = torch.randint(0, 50, (20, 6)), torch.randint(0, 5, (20,))
for _ in range(3):
    opt.zero_grad()
    logp = model(tokens)
    loss = F.cross_entropy(logp, labels)  # doctor: double-softmax
    loss.backward()
    opt.step()
