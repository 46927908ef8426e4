"""Features computed under no_grad in the training step, with the encoder in the optimizer."""

import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(10, 12), nn.ReLU())
head = nn.Linear(12, 2)
params = list(encoder.parameters()) + list(head.parameters())
opt = torch.optim.Adam(params, lr=1e-3)
x, y = torch.randn(24, 10), torch.randint(0, 2, (24,))
for _step in range(3):
    with torch.no_grad():
        feats = encoder(x)  # doctor: graph-cut
    loss = nn.functional.cross_entropy(head(feats), y)
    opt.zero_grad()
    loss.backward()
    opt.step()

# evaluation under no_grad is fine and is not reported
encoder.eval()
with torch.no_grad():
    print(head(encoder(x)).argmax(1)[:4])
