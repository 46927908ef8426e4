"""Linear regression by hand: the update uses .grad, which nobody zeroes."""

import torch

torch.manual_seed(0)
x = torch.randn(50, 2)
y = x @ torch.tensor([[2.0], [-1.0]]) + 0.5
w = torch.zeros(2, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.05
for _step in range(4):
    loss = ((x @ w + b - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad  # doctor: missing-zero-grad
        b -= lr * b.grad  # doctor: missing-zero-grad
print(w.flatten().tolist(), b.item())
