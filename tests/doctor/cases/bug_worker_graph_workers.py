"""A Dataset that embeds its samples with a module, loaded by two worker processes."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class EmbeddedDataset(Dataset):
    def __init__(self, n=24):
        self.tokens = torch.randint(0, 10, (n, 5))
        self.labels = torch.randint(0, 2, (n,))
        self.embedding = nn.Embedding(10, 4)

    def __len__(self):
        return len(self.tokens)

    def __getitem__(self, i):
        vectors = self.embedding(self.tokens[i]).mean(dim=0)  # doctor: worker-graph
        return vectors, self.labels[i]


torch.manual_seed(0)
model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(EmbeddedDataset(), batch_size=8, num_workers=2)
for xb, yb in loader:
    opt.zero_grad()
    nn.functional.cross_entropy(model(xb), yb).backward()
    opt.step()
