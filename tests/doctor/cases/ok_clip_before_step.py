"""The article's order: backward, clip, step; with a scheduler."""

import torch
import torch.nn as nn

torch.manual_seed(0)
lstm = nn.LSTM(input_size=3, hidden_size=8, batch_first=True)
head = nn.Linear(8, 1)
params = [*lstm.parameters(), *head.parameters()]
opt = torch.optim.Adam(params, lr=1e-2)
scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
seq, target = torch.randn(4, 5, 3), torch.randn(4, 1)
for _step in range(4):
    opt.zero_grad()
    out, (h, c) = lstm(seq)
    loss = nn.functional.mse_loss(head(out[:, -1]), target)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)
    torch.nn.utils.clip_grad_value_(params, clip_value=0.5)
    opt.step()
    scheduler.step()
