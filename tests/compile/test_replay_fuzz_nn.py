"""Random small models, compiled, trained side by side with an eager twin: the same losses,
parameters, buffers and errors after every step (Note [Replay], Note [Straight-line
replay]).

Each model is an `nn.Sequential` of a few layers drawn from the kinds a small network uses
(linear layers, normalisation, dropout, activations, an in-place ReLU, residual blocks).
Some draws give a model whose eager backward raises (a softmax, then an in-place ReLU on its
saved output): the compiled twin must raise the same error.
"""

import numpy as np
import pytest

import dyngrad as torch
from dyngrad import nn

LAYERS = [
    lambda c: nn.Linear(c, c),
    lambda c: nn.Linear(c, c, bias=False),
    lambda c: nn.ReLU(),
    lambda c: nn.ReLU(inplace=True),
    lambda c: nn.GELU(),
    lambda c: nn.Tanh(),
    lambda c: nn.Sigmoid(),
    lambda c: nn.SiLU(),
    lambda c: nn.LeakyReLU(0.1),
    lambda c: nn.ELU(),
    lambda c: nn.Softplus(),
    lambda c: nn.Mish(),
    lambda c: nn.Hardtanh(),
    lambda c: nn.Softmax(dim=-1),
    lambda c: nn.LogSoftmax(dim=-1),
    lambda c: nn.Dropout(0.2),
    lambda c: nn.LayerNorm(c),
    lambda c: nn.BatchNorm1d(c),
    lambda c: nn.Identity(),
]
SEEDS = range(160)


class _Residual(nn.Module):
    def __init__(self, body):
        super().__init__()
        self.body = body

    def forward(self, x):
        return x + self.body(x)


def _model(seed):
    rng = np.random.default_rng(seed)
    width = 6
    layers = [nn.Linear(5, width)]
    for _ in range(rng.integers(2, 7)):
        layer = LAYERS[rng.integers(len(LAYERS))](width)
        if rng.random() < 0.2:
            layer = _Residual(nn.Sequential(nn.Linear(width, width), layer))
        layers.append(layer)
    layers.append(nn.Linear(width, 2))
    return nn.Sequential(*layers)


def _train(seed, model, run, steps=4):
    """Per step: the loss (or the first line of the error raised) and every parameter and
    buffer after it."""
    torch.manual_seed(seed + 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    rng = np.random.default_rng(seed)
    record = []
    for _ in range(steps):
        x = torch.from_numpy(rng.standard_normal((4, 5)).astype(np.float32))
        try:
            opt.zero_grad()
            loss = (run(x) ** 2).mean()
            loss.backward()
            opt.step()
        except RuntimeError as error:
            record.append((str(error).splitlines()[0], []))
            continue
        state = [t.detach().numpy().copy() for t in (*model.parameters(), *model.buffers())]
        record.append((loss.item(), state))
    return record


@pytest.mark.parametrize("block", range(4))
def test_random_models_compiled_train_as_their_eager_twins(block):
    for seed in SEEDS[block::4]:
        torch._dynamo.reset()
        torch.manual_seed(seed)
        eager, compiled = _model(seed), _model(seed)
        compiled.load_state_dict(eager.state_dict())
        run = torch.compile(compiled)
        want, got = _train(seed, eager, eager), _train(seed, compiled, run)
        for (lw, sw), (lg, sg) in zip(want, got):
            assert lw == lg or (lw != lw and lg != lg), (seed, compiled)  # (NaN == NaN)
            assert len(sw) == len(sg)
            assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(sw, sg)), seed
        (status,) = torch._dynamo.replay_status(run)
        assert status.refused is None and status.replayed >= 1, (seed, status)
    torch._dynamo.reset()
