"""nn.Softmax(dim=0) at the end of a classifier: probabilities across the batch."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(4, 16),
    nn.Tanh(),
    nn.Linear(16, 3),
    nn.Softmax(dim=0),  # doctor: softmax-wrong-dim
)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x, y = torch.randn(48, 4), torch.randint(0, 3, (48,))
for _ in range(3):
    probs = model(x)
    loss = -torch.log(probs[torch.arange(48), y] + 1e-9).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
