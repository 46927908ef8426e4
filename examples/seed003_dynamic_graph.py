import dyngrad as torch

# Seed 003 ("PyTorch动态计算图实战：为什么你的backward()总是报错？"), sections 1 to 2.3: the
# article's programs, unchanged but for the import line. Lines the article marks as raising
# are wrapped in try/except so that the script runs on; where the article runs a step on a
# graph that an earlier backward already freed, a comment says so and the step gets a fresh
# graph, as PyTorch requires.


def first_sentence(error):
    return f"{type(error).__name__}: {str(error).split('. ')[0]}"


# 1. 动态计算图的核心特性
# 示例：动态图的即时构建特性
x = torch.tensor([2.0], requires_grad=True)
y = x**2  # 此时计算图已记录平方操作
print(y.grad_fn)  # 输出: <PowBackward0>

# 2.1 非标量输出的反向传播
# 错误示例
x = torch.randn(3, requires_grad=True)
y = x * 2
try:
    y.backward()  # 报错：y是3维向量
except RuntimeError as e:
    print(first_sentence(e))  # grad can be implicitly created only for scalar outputs

# 方法1：求和为标量
y.sum().backward()
print("x.grad after method 1:", x.grad)  # tensor([2., 2., 2.])
# 方法2：提供权重张量
# The two methods are alternatives: method 1's backward freed the graph of `y` (`x * 2` saved
# the 2), so method 2 needs a fresh forward.
y = x * 2
weights = torch.ones_like(y)
y.backward(weights)
print("x.grad after method 2:", x.grad)  # tensor([4., 4., 4.]): gradients accumulate

# 2.2 计算图被重复使用
x = torch.tensor([1.0], requires_grad=True)
y = x**2
y.backward()  # 第一次反向传播
try:
    y.backward()  # 报错：计算图已释放
except RuntimeError as e:
    print(first_sentence(e))  # Trying to backward through the graph a second time ...

# The graph of `y` is already gone, so retain_graph must be given on a fresh forward:
y = x**2
y.backward(retain_graph=True)  # 保留计算图
y.backward()  # 可以再次使用
print("x.grad:", x.grad)  # tensor([6.]): 2 + 2 + 2

# 2.3 梯度未清零导致的累积
# 梯度累积示例
w = torch.tensor([1.0], requires_grad=True)
for _ in range(3):
    loss = w * 2
    loss.backward()
    print(w.grad)  # 输出: tensor([2.]) → tensor([4.]) → tensor([6.])

# 正确做法是在每次反向传播前手动清零梯度：
# As written after the loop, these two lines raise: the last `loss`'s graph was freed by its
# backward. They belong inside the loop, before each backward.
try:
    w.grad.zero_()  # 注意带下划线的原地操作
    loss.backward()
except RuntimeError as e:
    print(first_sentence(e))
for _ in range(3):
    loss = w * 2
    w.grad.zero_()  # 注意带下划线的原地操作
    loss.backward()
    print(w.grad)  # tensor([2.]) every time
