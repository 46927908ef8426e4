"""Self-attention with a causal mask: masked_fill with -inf is intended, softmax is finite."""

import math

import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        mask = torch.triu(torch.ones(x.shape[1], x.shape[1], dtype=torch.bool), diagonal=1)
        scores = scores.masked_fill(mask, float("-inf"))
        return self.proj(scores.softmax(dim=-1) @ v)


torch.manual_seed(0)
model = Attention(8)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(2, 5, 8)
for _ in range(3):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
