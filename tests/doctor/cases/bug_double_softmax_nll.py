"""forward() returns probabilities and the loss is NLLLoss, which expects log-probabilities."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return F.softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


torch.manual_seed(0)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(30, 8), torch.randint(0, 3, (30,))
for _ in range(4):
    out = model(x)
    loss = F.nll_loss(out, y)  # doctor: double-softmax
    opt.zero_grad()
    loss.backward()
    opt.step()
