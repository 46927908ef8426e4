"""CosineAnnealingLR with T_max = the number of epochs, stepped after every batch of a
hand-written batch loop: the cosine ends within the first epoch and starts to climb back."""

import torch
import torch.nn as nn

EPOCHS, BATCH = 4, 8


def train_epoch(model, optimizer, scheduler, x, y):
    for i in range(0, len(x), BATCH):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x[i : i + BATCH]), y[i : i + BATCH])
        loss.backward()
        optimizer.step()
        scheduler.step()  # doctor: scheduler-misuse
    return loss.item()


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS)
x, y = torch.randn(48, 3), torch.randn(48, 1)
for epoch in range(EPOCHS):
    print(epoch, train_epoch(model, optimizer, scheduler, x, y))
