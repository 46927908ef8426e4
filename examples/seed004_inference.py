import dyngrad as torch
import dyngrad.nn as nn
from dyngrad.utils.data import DataLoader, TensorDataset

# Seed 004, sections 3.1 and 4.2: inference builds no graph, and model.eval() is a different
# switch from torch.no_grad(). The article's loop, unchanged but for the import lines, with a
# model and data to run on.

model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Dropout(0.5), nn.Linear(32, 1))
inference_data = DataLoader(TensorDataset(torch.randn(40, 20), torch.zeros(40)), batch_size=16)

# 3.1 对比一下常规用法
model.eval()
with torch.no_grad():
    for batch in inference_data:
        x, _ = batch
        out = model(x)
        # 这里有推理逻辑
        print(tuple(out.shape), out.requires_grad, out.grad_fn)  # no graph: False None

# 4.2 no_grad 关闭建图, eval 切换 dropout/BatchNorm 行为: two independent switches.
x = torch.randn(8, 20)
print(model.training)  # False: eval() turned dropout off...
print(model(x).requires_grad)  # True: ...but the graph is still built
with torch.no_grad():
    print(model(x).requires_grad)  # False
print(torch.equal(model(x), model(x)))  # True: no dropout in eval mode
model.train()
with torch.no_grad():
    print(torch.equal(model(x), model(x)))  # False: dropout draws a new mask each call
with torch.inference_mode():
    out = model(x)
print(out.requires_grad, out.grad_fn)  # False None
