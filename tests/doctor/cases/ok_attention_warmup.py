"""A small transformer classifier done right: heads split with view() and transpose(),
merged back after contiguous(), softmax over the keys, label smoothing, AdamW with a
warm-up then cosine (per batch, sized in batches), and an evaluation under no_grad with
model.eval() and model.train() restored."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, dim=16, heads=4):
        super().__init__()
        self.heads, self.qkv, self.proj = heads, nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        att = F.softmax(q @ k.transpose(-2, -1) / math.sqrt(c // self.heads), dim=-1)
        return self.proj((att @ v).transpose(1, 2).contiguous().view(b, t, c))


class Classifier(nn.Module):
    def __init__(self, vocab=40, dim=16, classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.attn = SelfAttention(dim)
        self.norm = nn.LayerNorm(dim)
        self.drop = nn.Dropout(0.1)
        self.out = nn.Linear(dim, classes)

    def forward(self, tokens):
        h = self.embed(tokens)
        h = self.norm(h + self.drop(self.attn(h)))
        return self.out(h.mean(dim=1))


torch.manual_seed(0)
model = Classifier()
batches = [(torch.randint(0, 40, (8, 6)), torch.randint(0, 3, (8,))) for _ in range(4)]
EPOCHS, WARMUP = 3, 3
total = EPOCHS * len(batches)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer,
    lambda s: (s + 1) / WARMUP if s < WARMUP else 0.5 * (1 + math.cos(math.pi * s / total)),
)
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
for epoch in range(EPOCHS):
    model.train()
    for tokens, labels in batches:
        optimizer.zero_grad()
        loss = criterion(model(tokens), labels)
        loss.backward()
        optimizer.step()
        scheduler.step()
    model.eval()
    with torch.no_grad():
        accuracy = sum((model(t).argmax(-1) == y).float().mean() for t, y in batches) / 4
    print(epoch, round(loss.item(), 3), round(accuracy.item(), 3))
