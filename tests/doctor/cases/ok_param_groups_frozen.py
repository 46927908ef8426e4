"""Near-misses of param-not-in-optimizer: a frozen embedding (requires_grad=False) left out
of the optimizer on purpose, layers in nn.ModuleList, two parameter groups, a head added
before the optimizer is built, and a second optimizer for the discriminator."""

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(30, 8)
        self.embed.weight.requires_grad = False
        self.blocks = nn.ModuleList([nn.Linear(8, 8) for _ in range(2)])

    def forward(self, tokens):
        x = self.embed(tokens).mean(1)
        for block in self.blocks:
            x = torch.relu(block(x))
        return self.head(x)


torch.manual_seed(0)
model = Net()
model.head = nn.Linear(8, 3)
critic = nn.Linear(3, 1)
opt = torch.optim.AdamW(
    [
        {"params": model.blocks.parameters(), "lr": 1e-3},
        {"params": model.head.parameters(), "lr": 1e-2},
    ]
)
opt_critic = torch.optim.SGD(critic.parameters(), lr=0.01)
tokens, y = torch.randint(0, 30, (16, 5)), torch.randint(0, 3, (16,))
for _ in range(3):
    logits = model(tokens)
    loss = nn.functional.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    score = critic(logits.detach()).mean()
    opt_critic.zero_grad()
    score.backward()
    opt_critic.step()
