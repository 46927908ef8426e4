import dyngrad as torch
import dyngrad.nn as nn
from dyngrad.utils.data import DataLoader, TensorDataset

# Seed 004, section 6.5 ("当训练卡住不动时"): split the problem in two by running a single batch
# through the model. The article's lines, unchanged but for the import lines, on section 4's
# model and data.

model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 8), nn.ReLU(), nn.Linear(8, 1))
loader = DataLoader(
    TensorDataset(torch.randn(128, 20), torch.randn(128, 1)), batch_size=16, shuffle=True
)

batch_x, batch_y = next(iter(loader))
with torch.no_grad():
    pred = model(batch_x)
print(pred.shape, batch_y.shape)  # torch.Size([16, 1]) torch.Size([16, 1])
