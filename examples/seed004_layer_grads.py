import dyngrad as torch

# Seed 004, section 2.1 minus nn: the article prints each layer's gradient to find where the
# gradient stops. This is the same program with the three nn.Linear layers written out as
# plain tensors (the article's nn version is seed004_simplenet.py). The weights and the batch
# are deterministic, instead of random, so the output can be compared with PyTorch's digit for
# digit.


def make_linear(name, fan_in, fan_out):
    n = fan_in * fan_out
    weight = torch.linspace(-1.0, 1.0, n).reshape(fan_out, fan_in) / fan_in**0.5
    bias = torch.linspace(-0.1, 0.1, fan_out)
    return {f"{name}.weight": weight.requires_grad_(), f"{name}.bias": bias.requires_grad_()}


params = {}
params.update(make_linear("layer1", 10, 20))
params.update(make_linear("layer2", 20, 5))
params.update(make_linear("layer3", 5, 1))
params.update(make_linear("unused", 5, 1))  # a layer the forward forgets: its grad stays None


def forward(x):
    h1 = torch.relu(x @ params["layer1.weight"].T + params["layer1.bias"])
    h2 = torch.relu(h1 @ params["layer2.weight"].T + params["layer2.bias"])
    return h2 @ params["layer3.weight"].T + params["layer3.bias"]


x = torch.linspace(-2.0, 2.0, 40).reshape(4, 10)  # 模拟一个batch
y = forward(x)
loss = y.sum()
loss.backward()

for name, param in params.items():
    if param.grad is None:
        print(f"{name}: gradient is None")
    else:
        print(f"{name}: grad shape {param.grad.shape}, grad mean {param.grad.mean().item():.6f}")

# 要么输入是整数类型: an integer tensor cannot require grad at all.
try:
    torch.tensor([1, 2]).requires_grad_()
except RuntimeError as e:
    print("RuntimeError:", e)
