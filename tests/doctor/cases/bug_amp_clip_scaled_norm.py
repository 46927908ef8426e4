"""Mixed precision with a GradScaler, and clip_grad_norm_ on gradients that are still
scaled (no scaler.unscale_ first): every step is clipped by a factor of the scale."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cpu")
x, y = torch.randn(64, 16), torch.randint(0, 4, (64,))
for _step in range(3):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = nn.functional.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)  # doctor: amp-clip-scaled
    scaler.step(optimizer)
    scaler.update()
