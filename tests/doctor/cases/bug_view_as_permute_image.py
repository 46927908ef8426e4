"""Channels-last images (B, H, W, C) turned into (B, C, H, W) with view(): the pixels are
scrambled, not moved."""

import torch
import torch.nn as nn

torch.manual_seed(0)
images = torch.rand(16, 12, 12, 3)  # as loaded from an image library: height, width, channels
labels = torch.randint(0, 2, (16,))
model = nn.Sequential(
    nn.Conv2d(3, 6, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(6, 2)
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for _ in range(2):
    for i in range(0, 16, 8):
        batch = images[i : i + 8]
        batch = batch.view(batch.size(0), 3, 12, 12)  # doctor: view-as-permute
        loss = nn.functional.cross_entropy(model(batch), labels[i : i + 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
