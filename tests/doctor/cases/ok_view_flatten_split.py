"""Near-misses of view-as-permute: flatten for a linear layer, a split into attention heads
and the merge back after transpose(), permute() to channels-last, a reshape of (N, 1)."""

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.out = nn.Linear(4 * 6 * 6 + dim, 3)

    def forward(self, seq, image):
        b, t, c = seq.shape
        q, k, v = self.qkv(seq).chunk(3, dim=-1)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        att = torch.softmax(q @ k.transpose(-2, -1) / 2.0, dim=-1)
        merged = (att @ v).transpose(1, 2).contiguous().view(b, t, c).mean(1)
        maps = self.conv(image).permute(0, 2, 3, 1)
        flat = maps.reshape(maps.size(0), -1)
        return self.out(torch.cat([flat, merged], dim=1))


torch.manual_seed(0)
model = Block()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
seq, image, y = torch.randn(5, 4, 8), torch.randn(5, 2, 6, 6), torch.randn(5, 1)
for _ in range(2):
    out = model(seq, image)
    loss = nn.functional.mse_loss(out[:, :1], y.view(5, 1).reshape(5, 1))
    opt.zero_grad()
    loss.backward()
    opt.step()
