import dyngrad as torch
import dyngrad.nn as nn

# Seed 004, section 2.1 ("直接看反传路径"): print each layer's gradient to find where the
# gradient stops. The article's program, unchanged but for the import lines. (The same
# program without nn, with deterministic weights, is seed004_layer_grads.py.)


class SimpleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = nn.Linear(10, 20)
        self.layer2 = nn.Linear(20, 5)
        self.layer3 = nn.Linear(5, 1)

    def forward(self, x):
        h1 = torch.relu(self.layer1(x))
        h2 = torch.relu(self.layer2(h1))
        return self.layer3(h2)


model = SimpleNet()
x = torch.randn(4, 10)  # 模拟一个batch
y = model(x)
loss = y.sum()
loss.backward()

for name, param in model.named_parameters():
    if param.grad is None:
        print(f"{name}: gradient is None")
    else:
        print(f"{name}: grad shape {param.grad.shape}, grad mean {param.grad.mean().item():.6f}")

# The article's three causes of a None gradient, shown: a frozen layer (requires_grad=False)
# and a layer the forward never uses.
model = SimpleNet()
model.layer1.weight.requires_grad_(False)
model.extra = nn.Linear(5, 5)  # registered, never called in forward
model(torch.randn(4, 10)).sum().backward()
for name, param in model.named_parameters():
    if param.grad is None:
        print(f"{name}: gradient is None")
