import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

# Seed 004, section 4 ("把机制用到实处：解析一段能直接复用的训练骨架"): the article's minimal
# training skeleton, unchanged but for the import lines. The data is random noise, so the loss
# only shows that the loop runs; examples/train_mlp.py learns something real.


# 1. 创建模型
class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 32)
        self.fc2 = nn.Linear(32, 8)
        self.fc3 = nn.Linear(8, 1)
        self.dropout = nn.Dropout(0.2)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = self.dropout(x)
        x = torch.relu(self.fc2(x))
        return self.fc3(x)


model = SimpleMLP()

# 2. 准备数据
X = torch.randn(128, 20)
y = torch.randn(128, 1)
dataset = TensorDataset(X, y)
loader = DataLoader(dataset, batch_size=16, shuffle=True)

# 3. 优化器与损失
optimizer = optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.MSELoss()

# 4. 训练循环
for epoch in range(5):
    total_loss = 0.0
    for batch_x, batch_y in loader:
        optimizer.zero_grad()
        pred = model(batch_x)
        loss = loss_fn(pred, batch_y)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    avg_loss = total_loss / len(loader)
    print(f"Epoch {epoch}: avg loss {avg_loss:.4f}")

# .item() keeps total_loss a Python float: no graph grows across iterations.
print(type(total_loss).__name__, len(loader))  # float 8
