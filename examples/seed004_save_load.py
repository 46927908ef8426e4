import dyngrad as torch
import dyngrad.nn as nn
import os
import tempfile

# Seed 004, section 3.5 ("模型保存和加载时的机制理解需求"): save the state_dict, not the model.
# The article's save and load lines, unchanged but for the import lines; the model class is
# the one of section 4, and the files go to a temporary directory.
os.chdir(tempfile.mkdtemp())


class ModelClass(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.fc1 = nn.Linear(20, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = ModelClass()
x = torch.randn(3, 20)
expected = model(x)

# 保存
torch.save(model.state_dict(), "model_weights.pth")
# 加载
model = ModelClass()  # 必须自己重新实例化
model.load_state_dict(torch.load("model_weights.pth"))
model.eval()

print(list(model.state_dict()))  # ['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']
print(torch.equal(model(x), expected))  # True

# 如果模型结构做过修改（比如某层维度变了），加载就会报 key 不匹配:
try:
    ModelClass(hidden=16).load_state_dict(torch.load("model_weights.pth"))
except RuntimeError as e:
    print(str(e).splitlines()[0])  # Error(s) in loading state_dict for ModelClass:
    print(str(e).splitlines()[1].strip())  # size mismatch for fc1.weight: ...
