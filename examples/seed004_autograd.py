import dyngrad as torch

# Seed 004 ("动态计算图与自动求导"), sections 1 and 2: the graph a -> b -> c -> d -> e, and
# what loss.backward() does with it. The article's programs, unchanged but for the import line
# (the article's page lost its operators; they are restored here: `c = a * b`, `d = c + 1`).

# 1. 静态图与动态图的本质差异
a = torch.tensor([2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
c = a * b
d = c + 1
e = torch.sum(d)
print(
    e.grad_fn.name(), [fn.name() for fn, _ in e.grad_fn.next_functions]
)  # SumBackward0 ['AddBackward0']

# 2. 用一段代码拆开反向传播的黑盒
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, 4.0], requires_grad=True)
z = x * y  # z = [3., 8.]
loss = z.sum()  # loss = 11
loss.backward()
print(x.grad)  # tensor([3., 4.])
print(y.grad)  # tensor([1., 2.])

# 上面的代码里z是非叶子节点，如果你打印z.grad默认得到 None
# (PyTorch also warns, on stderr, that a non-leaf's .grad is being accessed.)
print(z.grad)  # None
print(z.is_leaf, x.is_leaf)  # False True

# 如果想保留中间结果的梯度，记得在运算前对中间张量调用.retain_grad()
# (any time before the backward will do: retain_grad() registers on z's node)
z = x * y
z.retain_grad()
z.sum().backward()
print(z.grad)  # tensor([1., 1.])
print(x.grad)  # tensor([6., 8.]): accumulated over the two backward passes

# The article's definition of a leaf ("created by the user *and* requires_grad=True") misses
# that every tensor with requires_grad=False is a leaf too, as is a detached tensor or one
# made under no_grad (see SEED-ERRATA.md):
with torch.no_grad():
    n = x * 2
print(torch.tensor([1.0]).is_leaf, x.detach().is_leaf, n.is_leaf)  # True True True
