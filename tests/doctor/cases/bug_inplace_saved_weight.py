"""Weight clipping placed between the forward and the backward."""

import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.RMSprop(critic.parameters(), lr=5e-3)
real, fake = torch.randn(16, 2) + 2, torch.randn(16, 2)
hidden = torch.randn(16, 2, requires_grad=True)
for _step in range(2):
    opt.zero_grad()
    loss = critic(fake + hidden).mean() - critic(real).mean()
    with torch.no_grad():
        for p in critic.parameters():
            p.clamp_(-0.1, 0.1)  # doctor: inplace-saved
    loss.backward()
    opt.step()
