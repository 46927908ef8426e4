"""Training and inference workloads for bench/run.py, one definition for both libraries.

A training workload is a `Step`: zero_grad, forward (returns the loss), backward, optimizer
step, so the runner can time each phase on its own as well as the whole iteration.
"""

from __future__ import annotations

import numpy as np


class Step:
    """One training iteration split into the four phases the benchmark reports."""

    def __init__(self, t, model, optimizer, forward):
        self.t, self.model, self.optimizer, self._forward = t, model, optimizer, forward
        self.loss = None

    def zero_grad(self):
        self.optimizer.zero_grad(set_to_none=True)

    def forward(self):
        self.loss = self._forward()

    def backward(self):
        self.loss.backward()

    def step(self):
        self.optimizer.step()

    def __call__(self):
        self.zero_grad()
        self.forward()
        self.backward()
        self.step()


def _data(t, seed, *shapes_and_kinds):
    rng = np.random.default_rng(seed)
    out = []
    for shape, kind in shapes_and_kinds:
        if kind == "float":
            out.append(t.from_numpy(rng.standard_normal(shape).astype(np.float32)))
        else:
            out.append(t.from_numpy(rng.integers(0, kind, shape).astype(np.int64)))
    return out


def _same_init(t, model, seed=0):
    # both libraries start from identical weights, drawn here with NumPy
    rng = np.random.default_rng(seed)
    with t.no_grad():
        for p in model.parameters():
            bound = 1.0 / np.sqrt(p.shape[-1] if p.dim() > 1 else p.shape[0])
            p.copy_(t.from_numpy(rng.uniform(-bound, bound, tuple(p.shape)).astype(np.float32)))
    return model


def _as_is(fn):
    return fn


def simple_mlp(t, wrap=_as_is):
    """Seed 004 section 4's SimpleMLP: 20-32-8-1 with dropout, Adam, batch 16, MSE. `wrap`
    (e.g. `torch.compile`) is applied to the model the step calls."""
    nn = t.nn

    class SimpleMLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(20, 32)
            self.fc2 = nn.Linear(32, 8)
            self.fc3 = nn.Linear(8, 1)
            self.dropout = nn.Dropout(0.2)

        def forward(self, x):
            x = t.relu(self.fc1(x))
            x = self.dropout(x)
            x = t.relu(self.fc2(x))
            return self.fc3(x)

    model = _same_init(t, SimpleMLP())
    x, y = _data(t, 1, ((16, 20), "float"), ((16, 1), "float"))
    opt = t.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    run = wrap(model)
    return Step(t, model, opt, lambda: loss_fn(run(x), y))


def _mlp(t):
    nn = t.nn
    return _same_init(
        t,
        nn.Sequential(
            nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)
        ),
    )


def mlp_784(t):
    """MLP 784-512-512-10, SGD with momentum, batch 128, cross-entropy."""
    model = _mlp(t)
    x, y = _data(t, 2, ((128, 784), "float"), ((128,), 10))
    opt = t.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = t.nn.CrossEntropyLoss()
    return Step(t, model, opt, lambda: loss_fn(model(x), y))


def cnn(t):
    """2x(conv3x3, ReLU, maxpool) + Linear, Adam, batch 32x1x28x28."""
    nn = t.nn
    model = _same_init(
        t,
        nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(32 * 7 * 7, 10),
        ),
    )
    x, y = _data(t, 3, ((32, 1, 28, 28), "float"), ((32,), 10))
    opt = t.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    return Step(t, model, opt, lambda: loss_fn(model(x), y))


def char_lstm(t, wrap=_as_is):
    """A character LSTM written with basic ops: hidden 128, seq 32, batch 16, vocab 64. `wrap`
    is applied to the forward function (the whole unrolled sequence and its loss)."""
    vocab, hidden, seq, batch = 64, 128, 32, 16
    rng = np.random.default_rng(4)

    def param(*shape):
        bound = 1.0 / np.sqrt(hidden)
        return t.from_numpy(rng.uniform(-bound, bound, shape).astype(np.float32)).requires_grad_(
            True
        )

    emb, w_x, w_h, b = (
        param(vocab, hidden),
        param(hidden, 4 * hidden),
        param(hidden, 4 * hidden),
        param(4 * hidden),
    )
    w_out, b_out = param(hidden, vocab), param(vocab)
    params = [emb, w_x, w_h, b, w_out, b_out]
    (tokens,) = _data(t, 5, ((batch, seq + 1), vocab))
    opt = t.optim.SGD(params, lr=0.1)

    def forward():
        h = t.zeros(batch, hidden)
        c = t.zeros(batch, hidden)
        loss = 0.0
        for s in range(seq):
            gates = emb[tokens[:, s]] @ w_x + h @ w_h + b
            i, f, g, o = gates.chunk(4, dim=1)
            c = f.sigmoid() * c + i.sigmoid() * g.tanh()
            h = o.sigmoid() * c.tanh()
            logits = h @ w_out + b_out
            loss = loss + t.nn.functional.cross_entropy(logits, tokens[:, s + 1])
        return loss / seq

    return Step(t, None, opt, wrap(forward))


def mini_gpt(t, wrap=_as_is):
    """A 2-block GPT: d 128, 4 heads, seq 64, batch 8, vocab 128, AdamW. `wrap` is applied to
    the model the step calls."""
    nn, F = t.nn, t.nn.functional
    d, heads, seq, batch, vocab = 128, 4, 64, 8, 128

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x):
            b, n, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
            q, k, v = (z.view(b, n, heads, d // heads).transpose(1, 2) for z in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / (d // heads) ** 0.5)
            mask = t.triu(t.ones(n, n, dtype=t.bool), diagonal=1)
            att = att.masked_fill(mask, float("-inf")).softmax(dim=-1)
            y = (att @ v).transpose(1, 2).reshape(b, n, d)
            x = x + self.proj(y)
            return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
            self.blocks = nn.Sequential(Block(), Block())
            self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(t.arange(idx.shape[1]))
            return self.head(self.ln(self.blocks(x)))

    model = _same_init(t, GPT())
    (tokens,) = _data(t, 6, ((batch, seq + 1), vocab))
    x, y = tokens[:, :-1], tokens[:, 1:]
    opt = t.optim.AdamW(model.parameters(), lr=3e-4)
    run = wrap(model)
    return Step(t, model, opt, lambda: F.cross_entropy(run(x).reshape(-1, vocab), y.reshape(-1)))


def mlp_inference(t):
    """MLP 784-512-512-10 forward on one sample under no_grad."""
    model = _mlp(t).eval()
    (x,) = _data(t, 7, ((1, 784), "float"))

    def infer():
        with t.no_grad():
            return model(x)

    return infer


TRAINING = {
    "simple_mlp_adam_b16": simple_mlp,
    "mlp_784_sgd_b128": mlp_784,
    "cnn_adam_b32": cnn,
    "char_lstm_basic_ops": char_lstm,
    "mini_gpt_adamw": mini_gpt,
}
INFERENCE = {"mlp_inference_b1_no_grad": mlp_inference}
