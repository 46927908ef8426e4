"""Near-misses of eval-mode-not-restored: validation with model.eval() and model.train()
restored at the start of each epoch; a model without dropout or batch norm evaluated in
eval mode and trained on; input gradients (saliency) of a model in eval mode, no step."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(6, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 2)
)
plain = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2))
opt = torch.optim.Adam(list(model.parameters()) + list(plain.parameters()), lr=1e-3)
x, y = torch.randn(32, 6), torch.randint(0, 2, (32,))
plain.eval()
for epoch in range(3):
    model.train()
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y) + nn.functional.cross_entropy(plain(x), y)
    loss.backward()
    opt.step()
    model.eval()
    with torch.no_grad():
        print(epoch, (model(x).argmax(1) == y).float().mean().item())

probe = x[:4].clone().requires_grad_(True)
model(probe)[:, 1].sum().backward()
print(probe.grad.abs().mean().item())
