"""A sequence regressor done right: a batch-first LSTM, a seq-first input moved with
permute(), the target unsqueezed to (N, 1), MSELoss, clipping before the step, and a cosine
schedule of T_max epochs stepped per epoch; the last hidden state is detached between
batches of a long series."""

import torch
import torch.nn as nn


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 12, batch_first=True)
        self.head = nn.Linear(12, 1)

    def forward(self, x_seq_first):
        out, _ = self.lstm(x_seq_first.permute(1, 0, 2))
        return self.head(out[:, -1, :])


torch.manual_seed(0)
EPOCHS = 4
model = Forecaster()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS)
series = torch.randn(10, 24, 3)  # (seq, batch, features)
target = series[-1, :, 0] * 2.0  # (batch,)
for epoch in range(EPOCHS):
    for start in range(0, 24, 8):
        batch = series[:, start : start + 8]
        pred = model(batch)
        loss = nn.functional.mse_loss(pred, target[start : start + 8].unsqueeze(1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
    scheduler.step()
    print(epoch, round(loss.item(), 4), scheduler.get_last_lr())
