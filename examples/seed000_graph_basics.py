import dyngrad as torch

# Seed 000, section 1 ("张量不只是数组：它携带了整张计算图的线索"): a tensor carries the
# graph that made it. The article's program, unchanged but for the import line.

x = torch.tensor([2.0], requires_grad=True)
w = torch.tensor([3.0], requires_grad=True)
b = torch.tensor([1.0])  # 注意：b 没有 requires_grad

y = w * x + b
loss = y.sum()

print(f"loss.grad_fn: {loss.grad_fn}")  # SumBackward0
print(f"y.grad_fn: {y.grad_fn}")  # AddBackward0
print(f"x.is_leaf: {x.is_leaf}, x.grad_fn: {x.grad_fn}")  # True, None
print(f"b.requires_grad: {b.requires_grad}")  # False

# The article says a leaf is a tensor the user created *with* requires_grad=True. In PyTorch
# every tensor with requires_grad=False is a leaf as well, `b` included; only leaves that
# require grad accumulate `.grad`. See SEED-ERRATA.md.
print(f"b.is_leaf: {b.is_leaf}, b.grad_fn: {b.grad_fn}")  # True, None

# The article's point about saved activations: `b` needs no gradient, so the add saves
# nothing for it; the mul saves `x` for w's gradient and `w` for x's gradient.
loss.backward()
print(f"x.grad: {x.grad}, w.grad: {w.grad}, b.grad: {b.grad}")  # 3., 2., None
