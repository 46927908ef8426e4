"""Train and validate each epoch: eval() + no_grad() for validation, train() after."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
train = DataLoader(
    TensorDataset(torch.randn(48, 6), torch.randint(0, 3, (48,))), batch_size=16, shuffle=True
)
val = DataLoader(TensorDataset(torch.randn(32, 6), torch.randint(0, 3, (32,))), batch_size=16)
model = nn.Sequential(
    nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 3)
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
for epoch in range(2):
    model.train()
    for xb, yb in train:
        opt.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        opt.step()
    model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb in val:
            correct += (model(xb).argmax(1) == yb).sum().item()
    print(f"epoch {epoch}: accuracy {correct / 32:.2f}")


@torch.inference_mode()
def predict(batch):
    return model(batch).softmax(dim=1)


print(predict(torch.randn(3, 6)).shape)
