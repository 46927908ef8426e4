import dyngrad as torch
import dyngrad.nn as nn
import dyngrad.optim as optim

# Seed 004, section 4.1 ("梯度裁剪的放置位置"): clip between backward() and step(). The
# article's three lines, unchanged but for the import lines, in a loop that shows why the
# order matters.

model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(64, 20) * 10  # large inputs, large gradients
target = torch.randn(64, 1)


def grad_norm():
    return sum(p.grad.pow(2).sum().item() for p in model.parameters()) ** 0.5


optimizer.zero_grad()
loss = ((model(x) - target) ** 2).mean()
loss.backward()
total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
optimizer.step()
# clip_grad_norm_ returns the norm before clipping; the gradients step() reads are clipped.
print(f"norm before clipping > 1: {total_norm.item() > 1.0}")  # True
print(f"norm step() used: {grad_norm():.4f}")  # 1.0000

# The mistake the article warns about: clipping after step() changes .grad too late.
before = [p.detach().clone() for p in model.parameters()]
optimizer.zero_grad()
loss = ((model(x) - target) ** 2).mean()
loss.backward()
unclipped = grad_norm()
optimizer.step()
torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)  # 白裁: the step is done
moved = sum((p.detach() - b).pow(2).sum().item() for p, b in zip(model.parameters(), before)) ** 0.5
print(
    f"step size matches the unclipped gradient: {abs(moved - 0.1 * unclipped) < 1e-3 * unclipped}"
)  # True
