"""Near-misses of double-softmax: log_softmax with NLLLoss, logits with CrossEntropyLoss and
softmax only for the reported probabilities, log(softmax) with NLLLoss."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3), nn.LogSoftmax(dim=1))
head = nn.Linear(6, 3)
opt = torch.optim.Adam(list(net.parameters()) + list(head.parameters()), lr=1e-3)
nll, ce = nn.NLLLoss(), nn.CrossEntropyLoss()
x, y = torch.randn(24, 6), torch.randint(0, 3, (24,))
for _ in range(3):
    opt.zero_grad()
    logits = head(x)
    probs = F.softmax(logits, dim=1)
    confidence = probs.max(dim=1).values.mean()
    loss = nll(net(x), y) + ce(logits, y) + F.nll_loss(torch.log(probs + 1e-8), y)
    loss.backward()
    opt.step()
    print(f"{loss.item():.3f} {confidence.item():.3f}")
