"""StepLR(step_size=5) meant as "every 5 epochs" but stepped inside the batch loop: the
learning rate is divided by 10 every 5 batches and training stops after the first epoch."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(96, 8), torch.randint(0, 3, (96,)))
loader = DataLoader(data, batch_size=12, shuffle=True)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.1)
for epoch in range(3):
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()  # doctor: scheduler-misuse
    print(epoch, scheduler.get_last_lr())
