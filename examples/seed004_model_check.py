import dyngrad as torch
import dyngrad.nn as nn

# Seed 004, section 6.3 ("模型结构验证"): print the model, run a tiny batch, check the output
# shape. The article's lines, unchanged but for the import lines, on section 4's model.


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
print(model)
x = torch.randn(2, 20)
out = model(x)
print(out.shape)  # torch.Size([2, 1])
