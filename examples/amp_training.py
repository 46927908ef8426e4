import dyngrad as torch
import dyngrad.nn as nn
import dyngrad.optim as optim
from dyngrad.utils.data import DataLoader, TensorDataset

# Seed 004, section 5 (事故三, "混合精度训练要注意梯度缩放"): the article's AMP training
# skeleton, on the CPU with bfloat16. The article writes it for CUDA (`torch.cuda.amp`, whose
# autocast and GradScaler disable themselves on a machine without CUDA); on the CPU the same
# loop is spelled `torch.amp.autocast("cpu", dtype=torch.bfloat16)` and
# `torch.amp.GradScaler("cpu")`. Inside the region the Linear layers run in bfloat16 and the
# MSE loss in float32 (PyTorch's op policy), and the loss curve stays close to float32's.
# The article's warning: touching the gradients between `backward()` and `step()` sees them
# still multiplied by the scale, so clip only after `scaler.unscale_(optimizer)`.


class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 32)
        self.fc2 = nn.Linear(32, 8)
        self.fc3 = nn.Linear(8, 1)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = torch.relu(self.fc2(x))
        return self.fc3(x)


torch.manual_seed(0)
X = torch.randn(256, 20)
y = X[:, :5].sum(dim=1, keepdim=True) + 0.1 * torch.randn(256, 1)  # something to learn
loader = DataLoader(TensorDataset(X, y), batch_size=32)
initial = SimpleMLP().state_dict()
loss_fn = nn.MSELoss()


def train(use_amp: bool) -> list:
    model = SimpleMLP()
    model.load_state_dict(initial)
    optimizer = optim.Adam(model.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler("cpu", enabled=use_amp)
    curve = []
    for _ in range(6):
        total = 0.0
        for x, target in loader:
            optimizer.zero_grad()
            with torch.amp.autocast("cpu", dtype=torch.bfloat16, enabled=use_amp):
                pred = model(x)
                loss = loss_fn(pred, target)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)  # before reading the gradients: they are scaled
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
            scaler.step(optimizer)
            scaler.update()
            total += loss.item()
        curve.append(total / len(loader))
    if use_amp:
        print("prediction dtype under autocast:", pred.dtype, "| loss dtype:", loss.dtype)
        print("gradient dtype:", model.fc1.weight.grad.dtype, "| scale:", scaler.get_scale())
    return curve


full, mixed = train(False), train(True)
for epoch, (a, b) in enumerate(zip(full, mixed)):
    print(f"epoch {epoch}: float32 {a:.4f}  bfloat16 autocast {b:.4f}")
gap = max(abs(a - b) / a for a, b in zip(full, mixed))
print("loss curves within 10%:", gap < 0.10, "| loss fell:", mixed[-1] < mixed[0] / 2)
