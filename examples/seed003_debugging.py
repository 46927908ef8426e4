import dyngrad as torch

# Seed 003, section 3 ("高级调试技巧与最佳实践"): the article's debugging tools, run on dyngrad.
# Two of the article's programs cannot run as written; each is kept, next to a corrected
# version that can, with a comment saying why.

# 3.1 梯度流向可视化
# The article draws the graph with torchviz:
#     from torchviz import make_dot
#     make_dot(y, params=dict(x=x)).render("graph", format="png")
# torchviz walks PyTorch's C++ graph, so it cannot draw a dyngrad graph. dyngrad's drop-in is
# `from dyngrad.viz import make_dot`, with the same call; like torchviz it needs the optional
# graphviz package and Graphviz's `dot` program. Without them, dyngrad prints the same graph as
# text, one node a line, leaves with their shape and dtype:
x = torch.tensor([1.0], requires_grad=True)
y = x**2 + x * 3
print(torch.autograd.graph.describe(y))


# 3.2 梯度检查技巧
def grad_check(x, func, eps=1e-3):
    analytic_grad = func(x).backward()
    x.grad.zero_()
    numerical_grad = (func(x + eps) - func(x - eps)) / (2 * eps)
    return torch.allclose(analytic_grad, numerical_grad, atol=1e-4)


# The article's grad_check cannot work: backward() returns None, not the gradient, so
# allclose() is handed None (and x.grad is zeroed before anything reads it).
try:
    grad_check(torch.tensor([1.0], requires_grad=True), lambda t: (t**3).sum())
except TypeError as e:
    print("grad_check as written raises TypeError:", e)


def grad_check_fixed(x, func, eps=1e-3):
    """The article's idea, corrected, for a 1-D x and a scalar func."""
    x.grad = None
    func(x).backward()
    analytic_grad = x.grad  # backward() returns None; the gradient is in x.grad
    # Perturb one entry at a time: x + eps moves every entry at once and measures the sum of
    # the partial derivatives, not each of them.
    with torch.no_grad():
        steps = torch.eye(x.numel(), dtype=x.dtype) * eps
        numerical_grad = torch.tensor(
            [
                ((func(x + steps[i]) - func(x - steps[i])) / (2 * eps)).item()
                for i in range(x.numel())
            ],
            dtype=x.dtype,
        )
    return torch.allclose(analytic_grad, numerical_grad, atol=1e-4)


x64 = torch.tensor([0.5, -1.5, 2.0], dtype=torch.float64, requires_grad=True)
print("grad_check_fixed:", grad_check_fixed(x64, lambda t: (t**3).sum()))  # True (float64)
# The real tool: central differences for every entry of the Jacobian, in float64.
print("gradcheck:", torch.autograd.gradcheck(lambda t: t**3, (x64,)))  # True

# 3.3 内存优化策略
# 内存优化示例 (the article's 10000 x 10000 is shrunk to keep the example light)
with torch.no_grad():
    big_tensor = torch.randn(1000, 1000)  # 不记录计算历史
# As SEED-ERRATA.md notes, randn records no history in any mode: no_grad changes nothing
# here. It matters for ops on tensors that require grad:
w = torch.ones(3, requires_grad=True)
print(torch.randn(2).requires_grad, big_tensor.requires_grad)  # False False
with torch.no_grad():
    print((w * 2).requires_grad)  # False: no graph is built
print((w * 2).requires_grad)  # True
