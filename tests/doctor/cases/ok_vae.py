"""A VAE done right: images flattened with view(-1, 64), the reconstruction reshaped back,
a summed BCE and KL, a history of epoch losses as numbers, sampling under no_grad."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(64, 32)
        self.mu, self.logvar = nn.Linear(32, 4), nn.Linear(32, 4)
        self.dec1, self.dec2 = nn.Linear(4, 32), nn.Linear(32, 64)

    def forward(self, x):
        h = F.relu(self.enc(x.view(-1, 64)))
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return torch.sigmoid(self.dec2(F.relu(self.dec1(z)))), mu, logvar


torch.manual_seed(0)
model = VAE()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
images = torch.rand(32, 1, 8, 8)
losses = []
for _epoch in range(4):
    for i in range(0, 32, 8):
        batch = images[i : i + 8]
        recon, mu, logvar = model(batch)
        bce = F.binary_cross_entropy(recon, batch.view(-1, 64), reduction="sum")
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        loss = bce + kld
        opt.zero_grad()
        loss.backward()
        opt.step()
    losses.append(loss.item())
with torch.no_grad():
    samples = torch.sigmoid(model.dec2(F.relu(model.dec1(torch.randn(5, 4))))).view(5, 1, 8, 8)
print(losses, samples.shape)
