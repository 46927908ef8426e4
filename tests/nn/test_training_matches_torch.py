"""A seeded training script gives PyTorch's loss curve: the same initial weights, shuffles and
dropout masks, so the first 20 losses of an MLP and a small CNN agree to float32 rounding."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

RNG = np.random.default_rng(0)
FEATURES = RNG.normal(size=(96, 1, 8, 8)).astype(np.float32)
LABELS = RNG.integers(0, 3, size=96)


def _mlp(nn):
    return nn.Sequential(
        nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 3)
    )


def _cnn(nn):
    return nn.Sequential(
        nn.Conv2d(1, 4, 3),
        nn.ReLU(),
        nn.Dropout2d(0.2),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Dropout(0.25),
        nn.Linear(4 * 3 * 3, 3),
    )


def _train(lib, build, steps=20):
    lib.manual_seed(0)
    model = build(lib.nn)
    initial = [p.detach().numpy().copy() for p in model.parameters()]
    data = lib.utils.data.TensorDataset(lib.from_numpy(FEATURES), lib.from_numpy(LABELS))
    loader = lib.utils.data.DataLoader(data, batch_size=16, shuffle=True)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    while len(losses) < steps:
        for x, y in loader:
            loss = lib.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            if len(losses) == steps:
                break
    return initial, losses


@pytest.mark.parametrize("build", [_mlp, _cnn], ids=["mlp", "cnn"])
def test_first_20_losses_match_torch(build, torch):
    ours_initial, ours = _train(dyngrad, build)
    theirs_initial, theirs = _train(torch, build)
    for a, b in zip(ours_initial, theirs_initial):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=1e-6)
    assert len(set(np.round(ours, 3))) > 10  # it trained: the curve moves
