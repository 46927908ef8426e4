"""Linear regression by hand, with the gradients zeroed after each update."""

import torch

torch.manual_seed(0)
x = torch.randn(50, 2)
y = x @ torch.tensor([[2.0], [-1.0]]) + 0.5
w = torch.zeros(2, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for _step in range(20):
    loss = ((x @ w + b - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
        w.grad.zero_()
        b.grad.zero_()
print([round(v, 2) for v in w.flatten().tolist()], round(b.item(), 2))
