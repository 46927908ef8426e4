"""The doctor's cost: a watched training step against a plain one.

    PYTHONPATH=src python bench/doctor.py [--repeats 15]

Times the training loop of the articles' skeleton (examples/seed004_training_skeleton.py:
5 epochs of 8 batches, a DataLoader, Dropout, Adam: 40 steps) and of a small CNN classifier
with batch norm, a scheduler and validation (12 steps), plain and under
`dyngrad.doctor.watch()` (the session's start and end not counted), alternating, and prints
the medians and their ratio. The target is at most 1.5x.
"""

from __future__ import annotations

import argparse
import statistics
import time

import dyngrad
import dyngrad.nn as nn
from dyngrad.utils.data import DataLoader, TensorDataset


class SimpleMLP(nn.Module):
    """The articles' training skeleton (examples/seed004_training_skeleton.py)."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(20, 32), nn.Linear(32, 8), nn.Linear(8, 1)
        self.dropout = nn.Dropout(0.2)

    def forward(self, x):
        x = self.dropout(dyngrad.relu(self.fc1(x)))
        return self.fc3(dyngrad.relu(self.fc2(x)))


def skeleton():
    dyngrad.manual_seed(0)
    model = SimpleMLP()
    data = TensorDataset(dyngrad.randn(128, 20), dyngrad.randn(128, 1))
    loader = DataLoader(data, batch_size=16, shuffle=True)
    optimizer = dyngrad.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()

    def train():
        for _epoch in range(5):
            total_loss = 0.0
            for batch_x, batch_y in loader:
                optimizer.zero_grad()
                loss = loss_fn(model(batch_x), batch_y)
                loss.backward()
                optimizer.step()
                total_loss += loss.item()

    return train


def classifier():
    dyngrad.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Dropout(0.1),
        nn.Linear(4 * 6 * 6, 3),
    )  # fmt: skip
    opt = dyngrad.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    sched = dyngrad.optim.lr_scheduler.StepLR(opt, step_size=2)
    data = TensorDataset(dyngrad.randn(64, 1, 8, 8), dyngrad.randint(0, 3, (64,)))
    loader = DataLoader(data, batch_size=16, shuffle=True)

    def train():
        for _epoch in range(3):
            model.train()
            for x, y in loader:
                opt.zero_grad()
                loss = nn.functional.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
            sched.step()
            model.eval()
            with dyngrad.no_grad():
                model(data.tensors[0][:16]).softmax(dim=1)

    return train


def _clock() -> float:
    # CPU time of this process: on a shared machine wall time mostly measures the neighbours
    return time.process_time()


def timed(setup, watched: bool) -> float:
    """Seconds of the training loop alone: the session's start and end are not counted."""
    train = setup()
    if not watched:
        start = _clock()
        train()
        return _clock() - start
    with dyngrad.doctor.watch() as report:
        start = _clock()
        train()
        elapsed = _clock() - start
    assert not report.findings, report.format_table()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=25)
    args = parser.parse_args()
    for name, fn in (("skeleton (40 steps)", skeleton), ("cnn + scheduler", classifier)):
        timed(fn, False), timed(fn, True)  # warm up imports and caches
        plain, watched = [], []
        for _ in range(args.repeats):
            plain.append(timed(fn, False))
            watched.append(timed(fn, True))
        a, b = statistics.median(plain), statistics.median(watched)
        best = min(watched) / min(plain)
        print(
            f"{name:20s} median CPU plain {a * 1e3:6.1f} ms, watched {b * 1e3:6.1f} ms: "
            f"{b / a:.2f}x (best of each: {best:.2f}x)"
        )


if __name__ == "__main__":
    main()
