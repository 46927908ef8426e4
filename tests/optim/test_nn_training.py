"""20 training steps of an MLP, a CNN and an LSTM per optimizer, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

nn = pytest.importorskip("dyngrad.nn")

OPTIMIZERS = [
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-3}),
    ("Adam", {"lr": 0.01, "amsgrad": True}),
    ("AdamW", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.005, "momentum": 0.5, "centered": True}),
    ("Adagrad", {"lr": 0.05, "lr_decay": 1e-3}),
]


class _Last:
    """The LSTM's last time step, through a linear head."""

    def __init__(self, t):
        self.lstm = t.nn.LSTM(3, 5, num_layers=2, batch_first=True)
        self.head = t.nn.Linear(5, 2)

    def modules(self):
        return [self.lstm, self.head]

    def __call__(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


def _mlp(t):
    return t.nn.Sequential(t.nn.Linear(6, 8), t.nn.Tanh(), t.nn.Linear(8, 2))


def _cnn(t):
    return t.nn.Sequential(
        t.nn.Conv2d(1, 3, 3, padding=1),
        t.nn.ReLU(),
        t.nn.MaxPool2d(2),
        t.nn.Flatten(),
        t.nn.Linear(3 * 3 * 3, 4),
    )


MODELS = {
    "mlp": (_mlp, (5, 6), lambda t: t.nn.MSELoss(), lambda rng: rng.standard_normal((5, 2))),
    "cnn": (
        _cnn,
        (4, 1, 6, 6),
        lambda t: t.nn.CrossEntropyLoss(),
        lambda rng: rng.integers(0, 4, size=4),
    ),
    "lstm": (_Last, (3, 4, 3), lambda t: t.nn.MSELoss(), lambda rng: rng.standard_normal((3, 2))),
}


def _parameters(model):
    parts = model.modules() if isinstance(model, _Last) else [model]
    return [p for part in parts for p in part.parameters()]


def _train(t, key, name, kwargs, initial, dtype="float32"):
    make, x_shape, make_loss, make_target = MODELS[key]
    model = make(t)
    for part in model.modules() if isinstance(model, _Last) else [model]:
        part.to(getattr(t, dtype))
    params = _parameters(model)
    with t.no_grad():
        for p, value in zip(params, initial):
            p.copy_(t.tensor(value.astype(dtype)))
    opt = getattr(t.optim, name)(params, **kwargs)
    loss_fn = make_loss(t)
    rng = np.random.default_rng(0)
    batches = [(rng.standard_normal(x_shape).astype(dtype), make_target(rng)) for _ in range(4)]
    for step in range(20):
        x, y = batches[step % 4]
        target = t.tensor(y.astype(dtype)) if y.dtype.kind == "f" else t.tensor(y)
        opt.zero_grad()
        loss_fn(model(t.tensor(x)), target).backward()
        opt.step()
    return [p.detach().numpy().copy() for p in params]


@pytest.mark.parametrize("key", list(MODELS))
@pytest.mark.parametrize(("name", "kwargs"), OPTIMIZERS, ids=[n for n, _ in OPTIMIZERS])
def test_twenty_steps_match_torch(torch, key, name, kwargs):
    torch.manual_seed(0)
    initial = [p.detach().numpy().copy() for p in _parameters(MODELS[key][0](torch))]
    # RMSprop divides each gradient by its own running RMS, so a near-zero LSTM gradient
    # entry (~1e-7, summed from cancelling terms) passes its float32 rounding (~1e-10,
    # different summation orders) straight into the update: compare that case in float64.
    dtype = "float64" if (name, key) == ("RMSprop", "lstm") else "float32"
    ours = _train(dyngrad, key, name, kwargs, initial, dtype)
    theirs = _train(torch, key, name, kwargs, initial, dtype)
    assert [a.shape for a in ours] == [b.shape for b in theirs]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
