"""Common model shapes, compiled and trained side by side with an eager twin: each replays
(Note [Replay]) and every loss, gradient, parameter and buffer equals eager's, bit for bit.

Each model exercises something a replay has to redo exactly: dropout draws, BatchNorm's
running statistics and its `num_batches_tracked.add_(1)` (Note [In-place steps]), max
pooling's indices read by a formula, upsampling's interpolation weights, ReLU(inplace=True) and `out += identity` on tensors
that require grad, a causal mask built inside the call, attention masks
that vary per call (fully masked rows included), a submodule's weight read without running
the submodule (MultiheadAttention's out_proj), weights tied between two modules.
"""

import math

import numpy as np
import pytest

import dyngrad as torch
from dyngrad import nn

F = nn.functional


class Attention(nn.Module):
    def __init__(self, d=16, heads=4, block=8, sdpa=False):
        super().__init__()
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.drop = nn.Dropout(0.1)
        self.d, self.heads, self.sdpa = d, heads, sdpa
        self.register_buffer("tril", torch.tril(torch.ones(block, block)).view(1, 1, block, block))

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = (
            z.view(b, n, self.heads, d // self.heads).transpose(1, 2)
            for z in self.qkv(x).split(self.d, dim=2)
        )
        if self.sdpa:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
            att = att.masked_fill(self.tril[:, :, :n, :n] == 0, float("-inf"))
            y = self.drop(att.softmax(-1)) @ v
        return self.drop(self.proj(y.transpose(1, 2).contiguous().view(b, n, d)))


class TinyGPT(nn.Module):
    def __init__(self, sdpa=False, vocab=20, d=16, block=8):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(block, d)
        self.ln1, self.ln2, self.ln = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attention(d, block=block, sdpa=sdpa)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.head = nn.Linear(d, vocab, bias=False)
        self.tok.weight = self.head.weight  # tied

    def forward(self, idx, targets):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
        x = x + self.attn(self.ln1(x))
        x = x + self.mlp(self.ln2(x))
        logits = self.head(self.ln(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4)
        self.c2, self.b2 = nn.Conv2d(4, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4)
        self.fc, self.drop = nn.Linear(4 * 2 * 2, 5), nn.Dropout(0.25)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.b1(self.c1(x))), 2)
        x = F.max_pool2d(F.relu(self.b2(self.c2(x)) + x), 2)  # a residual add
        return F.log_softmax(self.fc(self.drop(torch.flatten(x, 1))), dim=1)


class BasicBlock(nn.Module):
    # torchvision's ResNet block: ReLU(inplace=True), `out += identity`, a downsampling path
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(2, 4, 3, stride=2, padding=1, bias=False)
        self.bn1, self.bn2 = nn.BatchNorm2d(4), nn.BatchNorm2d(4)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(4, 4, 3, padding=1, bias=False)
        self.downsample = nn.Sequential(nn.Conv2d(2, 4, 1, stride=2, bias=False), nn.BatchNorm2d(4))
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.downsample(x)
        out = self.relu(out)
        return self.fc(F.adaptive_avg_pool2d(out, 1).flatten(1))


class TinyUNet(nn.Module):
    # upsampling (its interpolation weights are built from sizes: Constant), skip joins,
    # and a matrix made with torch.eye inside the call
    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(1, 4, 3, padding=1)
        self.mid = nn.Conv2d(4, 4, 3, padding=1)
        self.up = nn.Conv2d(8, 2, 3, padding=1)
        self.mix = nn.Parameter(torch.zeros(2, 2))

    def forward(self, x):
        skip = F.relu(self.down(x))
        y = F.relu(self.mid(F.max_pool2d(skip, 2)))
        y = F.interpolate(y, scale_factor=2, mode="bilinear", align_corners=False)
        y = self.up(torch.cat([y, F.interpolate(skip, size=skip.shape[-2:])], 1))
        return torch.einsum("bchw,cd->bdhw", y, self.mix + torch.eye(2))


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(12, 6)
        self.lstm = nn.LSTM(6, 8, num_layers=2, batch_first=True)
        self.gru = nn.GRU(8, 5, batch_first=True)
        self.out = nn.Linear(5, 12)

    def forward(self, x):
        y, _ = self.lstm(self.emb(x))
        y, h = self.gru(y)
        return self.out(h[-1])


class MaskedEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.1, batch_first=True)

    def forward(self, x, padding):
        return self.layer(x, src_key_padding_mask=padding)


def _padding(step):
    # which positions each sequence pads: a row fully padded on some calls
    mask = torch.zeros(3, 6, dtype=torch.bool)
    mask[0, 6 - step % 3 :] = True
    if step % 2:
        mask[2] = True
    return mask


MODELS = {
    "gpt": (TinyGPT, lambda s: (torch.randint(0, 20, (3, 8)), torch.randint(0, 20, (3, 8)))),
    "gpt_sdpa": (
        lambda: TinyGPT(sdpa=True),
        lambda s: (torch.randint(0, 20, (3, 8)), torch.randint(0, 20, (3, 8))),
    ),
    "convnet": (ConvNet, lambda s: (torch.randn(4, 1, 8, 8),)),
    "resnet_block": (BasicBlock, lambda s: (torch.randn(3, 2, 6, 6),)),
    "unet": (TinyUNet, lambda s: (torch.randn(2, 1, 8, 8),)),
    "recurrent": (Recurrent, lambda s: (torch.randint(0, 12, (3, 7)),)),
    "masked_encoder": (MaskedEncoder, lambda s: (torch.randn(3, 6, 16), _padding(s))),
    "mlp_batchnorm": (
        lambda: nn.Sequential(
            nn.Flatten(), nn.Linear(12, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3)
        ),
        lambda s: (torch.randn(5, 3, 4),),
    ),
}


def _loss(out):
    return out if out.dim() == 0 else out.float().pow(2).mean()


def _train(make_inputs, model, run, steps=5):
    torch.manual_seed(11)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    record = []
    for s in range(steps):
        opt.zero_grad()
        loss = _loss(run(*make_inputs(s)))
        loss.backward()
        opt.step()
        grads = [None if p.grad is None else p.grad.numpy().copy() for p in model.parameters()]
        state = [t.detach().numpy().copy() for t in (*model.parameters(), *model.buffers())]
        record.append((loss.item(), grads, state))
    return record


def _same(a, b) -> None:
    for (la, ga, sa), (lb, gb, sb) in zip(a, b):
        assert la == lb
        for x, y in zip(ga, gb):
            assert (x is None and y is None) or np.array_equal(x, y)
        for x, y in zip(sa, sb):
            assert np.array_equal(x, y, equal_nan=True)


@pytest.fixture(autouse=True)
def _fresh():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_compiled_model_replays_and_trains_as_its_eager_twin(name):
    make, make_inputs = MODELS[name]
    torch.manual_seed(0)
    eager, compiled = make(), make()
    compiled.load_state_dict(eager.state_dict())
    run = torch.compile(compiled)
    _same(_train(make_inputs, eager, eager), _train(make_inputs, compiled, run))
    (status,) = torch._dynamo.replay_status(run)
    assert status.refused is None
    assert status.replayed >= 3  # (the padding model traces once more per mask pattern)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_generated_backward_equals_the_plan_interpreter(name):
    # Note [Straight-line replay]: the replay's generated backward and run_plan (which the
    # traced call's node runs) give the same arrays on the same captured graph
    from dyngrad._dynamo.compiled_node import run_plan

    make, make_inputs = MODELS[name]
    torch.manual_seed(0)
    run = torch.compile(make())
    for s in range(3):
        out = run(*make_inputs(s))
        _loss(out).backward()
    out = run(*make_inputs(3))
    graph = out.grad_fn._graph  # a replay's node
    grads = tuple(torch.randn(t.shape) for t in graph.rooted)
    with torch.no_grad():  # (as the engine runs a backward without create_graph)
        generated = graph.backward(grads)
        interpreted = run_plan(graph.plan, grads, len(out.grad_fn.next_functions), False)
    assert len(generated) == len(interpreted)
    for a, b in zip(generated, interpreted):
        assert (a is None and b is None) or np.array_equal(a.numpy(), b.numpy())
