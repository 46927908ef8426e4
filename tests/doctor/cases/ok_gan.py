"""A tiny GAN: fake.detach() for the discriminator step, then the generator step."""

import torch
import torch.nn as nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
bce = nn.BCEWithLogitsLoss()
ones, zeros = torch.ones(16, 1), torch.zeros(16, 1)
for step in range(4):
    real = torch.randn(16, 2) * 0.5 + 2
    fake = G(torch.randn(16, 2))
    opt_d.zero_grad()
    d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss = bce(D(fake), ones)
    g_loss.backward()
    opt_g.step()
    print(f"step {step}: d {d_loss.item():.3f} g {g_loss.item():.3f}")
with torch.no_grad():
    samples = G(torch.randn(4, 2))
print(samples.shape)
