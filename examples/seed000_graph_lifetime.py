import dyngrad as torch

# Seed 000, section 2 ("前向传播即建图：动态图'每次都是新的'意味着什么"): the graph is built
# during the forward and freed by backward. The article's three programs, unchanged but for
# the import line; where the article's comments are wrong, a comment says what PyTorch does.

# 1. 图的生命周期：backward 后图结构被释放
x = torch.tensor([2.0], requires_grad=True)
y = x * 3
print(y.grad_fn)  # MulBackward0
y.backward()
print(y.grad_fn)  # None → 中间张量的 grad_fn 随图回收
# The article is wrong here: PyTorch still prints <MulBackward0 ...>. backward() frees the
# *saved buffers* of the graph (here the scalar 3, which `x * 3` saves as a tensor), not the
# nodes, and `y.grad_fn` keeps pointing at its node. As the article itself says next, the
# real test is a second backward, which raises (see SEED-ERRATA.md):
try:
    y.backward()
except RuntimeError as e:
    print("second backward:", str(e).split(". ")[0])
# A graph whose nodes saved nothing (additions only) can be walked again:
s = x + 1
s.backward()
s.backward()
print("x.grad:", x.grad)  # 5. = 3 (from x * 3) + 1 + 1 (two passes through x + 1)

# 2. 每次 forward 都是新图
for i in range(2):
    z = x * (i + 1)
    print(f"Iter {i}: id(z.grad_fn)={id(z.grad_fn)}")
# 两次 ID 不同 → 独立的新图
# Careful with this check: in PyTorch `z.grad_fn` is a Python wrapper made when it is read, and
# it dies at the end of the print, so the two ids often coincide even though the graphs are
# different. Keep the nodes alive to compare them:
nodes = []
for i in range(2):
    z = x * (i + 1)
    nodes.append(z.grad_fn)
print("two different nodes:", nodes[0] is not nodes[1])  # True

# 3. retain_graph 的作用与代价
a = torch.tensor([1.0], requires_grad=True)
b = a * 2
b.backward(retain_graph=True)
print(b.grad_fn)  # 仍存在 → 可再次 backward
b.backward()  # the retained graph can indeed be walked again; a.grad accumulates
print("a.grad:", a.grad)  # 4. = 2 + 2
