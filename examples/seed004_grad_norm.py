import dyngrad as torch
import dyngrad.nn as nn

# Seed 004, section 6.1 ("检查梯度是否正常传播"): the global gradient norm. The article's
# loop, unchanged but for the import lines, after one backward of a small model.

model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 1))
loss = model(torch.randn(16, 20)).pow(2).mean()
loss.backward()

total_norm = 0.0
for p in model.parameters():
    if p.grad is not None:
        param_norm = p.grad.detach().data.norm(2)
        total_norm += param_norm.item() ** 2
total_norm = total_norm**0.5
print(f"Global gradient norm: {total_norm:.4f}")

# The same number, from the library: clip_grad_norm_ with an infinite max_norm clips nothing.
library_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=float("inf"))
print(abs(library_norm.item() - total_norm) < 1e-4 * total_norm)  # True
