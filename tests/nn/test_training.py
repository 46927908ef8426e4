"""Twenty SGD steps of an MLP, a CNN and an LSTM from the same weights and batches as torch."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from .parity import twins


def _mlp(nn):
    return nn.Sequential(
        nn.Linear(6, 16),
        nn.ReLU(),
        nn.Dropout(0.0),
        nn.Linear(16, 16),
        nn.Tanh(),
        nn.LayerNorm(16),
        nn.Linear(16, 3),
    )


def _cnn(nn):
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 6, 3),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(6, 3),
    )


class _Tagger:
    """An embedding, an LSTM and a linear head, as a sequence classifier."""

    @staticmethod
    def build(nn):
        class Tagger(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Embedding(10, 5)
                self.lstm = nn.LSTM(5, 8, num_layers=2, batch_first=True, bidirectional=True)
                self.head = nn.Linear(16, 3)

            def forward(self, tokens):
                out, _ = self.lstm(self.embed(tokens))
                return self.head(out[:, -1])

        return Tagger()


def _batches(kind: str, steps: int):
    rng = np.random.default_rng(42)
    for _ in range(steps):
        labels = rng.integers(0, 3, 8)
        if kind == "mlp":
            yield rng.standard_normal((8, 6)), labels
        elif kind == "cnn":
            yield rng.standard_normal((8, 1, 8, 8)), labels
        else:
            yield rng.integers(0, 10, (8, 6)), labels


@pytest.mark.parametrize("kind,make", [("mlp", _mlp), ("cnn", _cnn), ("lstm", _Tagger.build)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sgd_training_matches_torch(kind, make, dtype, torch):
    theirs, ours = twins(torch, make, dtype=dtype)
    np_dtype = np.float64 if dtype == "float64" else np.float32
    lr = 0.1
    for inputs, labels in _batches(kind, 20):
        if inputs.dtype.kind == "f":
            inputs = inputs.astype(np_dtype)
        losses = []
        for lib, model in ((torch, theirs), (dyngrad, ours)):
            model.zero_grad()
            loss = lib.nn.functional.cross_entropy(
                model(lib.from_numpy(inputs)), lib.from_numpy(labels)
            )
            loss.backward()
            with lib.no_grad():
                for p in model.parameters():
                    p -= lr * p.grad
            losses.append(loss.item())
        assert np.isclose(losses[1], losses[0], rtol=1e-5 if dtype == "float32" else 1e-10)
    tol = 1e-5 if dtype == "float32" else 1e-10
    theirs_state = theirs.state_dict()
    for name, value in ours.state_dict().items():
        np.testing.assert_allclose(
            value.numpy(), theirs_state[name].numpy(), rtol=tol, atol=tol, err_msg=name
        )
