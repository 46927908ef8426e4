"""An in-place add on the output of exp, which exp saved for its backward."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 3)
x = torch.randn(5, 4)
scores = torch.exp(model(x))
scores += 1.0  # doctor: inplace-saved
loss = torch.log(scores).sum()
loss.backward()
