"""A Dataset whose augmentation uses a tensor that requires grad (num_workers=0)."""

import torch
from torch.utils.data import DataLoader, Dataset


class NoisyDataset(Dataset):
    def __init__(self, n=32):
        self.x = torch.randn(n, 4)
        self.y = torch.randn(n, 1)
        self.noise_scale = torch.tensor(0.1, requires_grad=True)  # meant to be tuned later

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        noisy = self.x[i] + self.noise_scale * torch.randn(4)  # doctor: worker-graph
        return noisy, self.y[i]


torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for xb, yb in DataLoader(NoisyDataset(), batch_size=8):
    opt.zero_grad()
    torch.nn.functional.mse_loss(model(xb), yb).backward()
    opt.step()
