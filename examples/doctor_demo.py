import sys

import dyngrad as torch
import dyngrad.nn as nn
import dyngrad.nn.functional as F

# The doctor on a training loop that runs, and even learns, yet carries four classic bugs.
#
#   python examples/doctor_demo.py                     watch() inside the program
#   python -m dyngrad doctor examples/doctor_demo.py   the same from outside, on any script
#   python examples/doctor_demo.py --images docs/img   also draw the pictures of docs/doctor.md


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 32)
        self.fc2 = nn.Linear(32, 16)
        self.head = nn.Linear(16, 3)
        self.aux = nn.Linear(16, 3)  # bug 1: an auxiliary head that forward() never uses
        self.dropout = nn.Dropout(0.2)

    def forward(self, x):
        h = self.dropout(torch.relu(self.fc1(x)))
        return self.head(torch.relu(self.fc2(h)))


def train(model, x, y, steps=6):
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    total_loss = 0.0
    for _step in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)  # bug 2: after step()
        total_loss += loss  # bug 3: keeps every iteration's graph alive
    return loss, total_loss


def accuracy(model, x, y):
    with torch.no_grad():  # bug 4: the model is still in training mode (dropout is on)
        return (model(x).argmax(dim=1) == y).float().mean().item()


torch.manual_seed(0)
x = torch.randn(64, 10)
y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
model = Net()
with torch.doctor.watch() as report:
    loss, total_loss = train(model, x, y)
    print(f"mean loss {total_loss.item() / 6:.3f}, accuracy {accuracy(model, x, y):.2f}")
print(report.format_table())
print()
torch.doctor.print_grad_flow(model.named_parameters())

if "--images" in sys.argv:  # the pictures of docs/doctor.md
    folder = sys.argv[sys.argv.index("--images") + 1]
    torch.doctor.plot_grad_flow(model.named_parameters(), f"{folder}/grad_flow.png")
    params = dict(model.named_parameters())
    dot = torch.viz.make_dot(loss, params=params)
    dot.render(f"{folder}/graph", format="png", cleanup=True)
