import dyngrad as torch

# Seed 004, section 2: the article's experiment on gradient accumulation, unchanged but for
# the import line.

a = torch.tensor(2.0, requires_grad=True)
for step in range(3):
    loss = (a + 1) * (a + 1)
    loss.backward()
    print(f"step {step}: grad {a.grad}")
# 第一次 backward 输出 grad 4.0
# 之后会报错还是会累积？
#
# What PyTorch really does (see SEED-ERRATA.md): no error, because each iteration runs a new
# forward and so builds a new graph; the gradient d(a+1)^2/da = 2(a+1) = 6 (not 4) is added
# to a.grad every time: 6.0, 12.0, 18.0. That is why a training loop calls zero_grad().

a.grad = None  # what optimizer.zero_grad() does by default (set_to_none=True)
for step in range(3):
    a.grad = None
    loss = (a + 1) * (a + 1)
    loss.backward()
    print(f"step {step} with zeroing: grad {a.grad}")  # 6.0 every time
