"""Near-miss of amp-clip-scaled: scaler.unscale_(optimizer) before clipping, as PyTorch's
AMP recipe does; and a second model clipped without any scaler."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cpu")
plain = nn.Linear(16, 4)
plain_opt = torch.optim.SGD(plain.parameters(), lr=0.1)
x, y = torch.randn(64, 16), torch.randint(0, 4, (64,))
for _step in range(3):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = nn.functional.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)
    scaler.update()
    plain_opt.zero_grad()
    nn.functional.cross_entropy(plain(x), y).backward()
    nn.utils.clip_grad_norm_(plain.parameters(), 1.0)
    plain_opt.step()
