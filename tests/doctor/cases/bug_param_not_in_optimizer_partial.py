"""The optimizer is built on the encoder only, by mistake: the decoder gets gradients but
never trains."""

import torch
import torch.nn as nn


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(20, 8), nn.ReLU())
        self.decoder = nn.Linear(8, 20)

    def forward(self, x):
        return self.decoder(self.encoder(x))


torch.manual_seed(0)
model = AutoEncoder()
opt = torch.optim.Adam(model.encoder.parameters(), lr=1e-3)  # doctor: param-not-in-optimizer
data = torch.randn(64, 20)
for _ in range(4):
    recon = model(data)
    loss = nn.functional.mse_loss(recon, data)
    opt.zero_grad()
    loss.backward()
    opt.step()
