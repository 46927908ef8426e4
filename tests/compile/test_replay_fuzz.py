"""Random small programs, compiled and called again on new data, against eager: the same
values, the same gradients and the same errors on every call (Note [Replay]).

Each program chains a few steps drawn from the op kinds a forward uses: elementwise maths,
views and copies, reductions, in-place writes (on fresh tensors, on views, on tensors an
op saved, through a detached alias), dropout and random draws, indexing. A replay must follow each call's data, or refuse and run the
Python; it must never give another answer. (This comparison found a replay that hid
"modified by an inplace operation", a compiled backward that ran a rebuilt view's node
too early, and a replay that wrote through a detached alias into the last call's array.)
"""

import random

import numpy as np
import pytest

import dyngrad as torch

F = torch.nn.functional


def _fresh_add(a):
    b = a * 1.0
    b += a.sin()
    return b


def _fresh_mul(a):
    b = a + 0.0
    b *= 2
    return b


def _exp_minus_one(a):
    b = a.exp()
    b.sub_(1.0)  # exp saved its output: eager raises at backward
    return b


def _view_then_write(a):
    b = a * 1.0
    v = b[0]
    b.relu_()  # v's history is rebuilt through the write
    return v * 2 + b


def _row_copied(a):
    b = a * 1.0
    b[0] = a[1]
    return b


def _column_bumped(a):
    b = a.clone()
    b[:, 0] += 1.0
    return b


def _transposed_in_place(a):
    b = a * 1.0
    return b.t_()


def _relu_(a):
    return a.relu_() if a.grad_fn is not None else a.relu()


STEPS = {
    "exp": lambda a: (a * 0.3).exp(),
    "tanh": lambda a: a.tanh(),
    "sigmoid": lambda a: a.sigmoid(),
    "relu": lambda a: a.relu(),
    "relu_": _relu_,
    "neg": lambda a: -a,
    "square": lambda a: a * a,
    "abs": lambda a: a.abs(),
    "t": lambda a: a.t(),
    "t_contiguous": lambda a: a.t().contiguous(),
    "sum_keepdim": lambda a: a.sum(0, keepdim=True) + a,
    "centre": lambda a: a - a.mean(),
    "softmax": lambda a: a.softmax(-1),
    "log_softmax": lambda a: F.log_softmax(a, -1),
    "cumsum": lambda a: a.cumsum(-1),
    "flip": lambda a: a.flip(0),
    "row_plus": lambda a: a + a[0],
    "reshape": lambda a: a.reshape(-1).reshape(a.shape),
    "clamp": lambda a: a.clamp(-0.5, 0.5),
    "where": lambda a: torch.where(a > 0, a, a * 0.1),
    "max_dim": lambda a: a.max(-1, keepdim=True)[0] * a,
    "fresh_add": _fresh_add,
    "fresh_mul": _fresh_mul,
    "exp_minus_one": _exp_minus_one,
    "view_then_write": _view_then_write,
    "gelu": lambda a: F.gelu(a),
    "dropout": lambda a: F.dropout(a, 0.3),
    "layer_norm": lambda a: F.layer_norm(a, a.shape[-1:]),
    "cat": lambda a: torch.cat([a, a * 2], 0)[: a.shape[0]],
    "stack": lambda a: torch.stack([a, a.sin()]).sum(0),
    "pow": lambda a: a.abs().pow(1.5),
    "sort": lambda a: a.sort(-1)[0],
    "topk": lambda a: a.topk(2, -1)[0].sum(-1, keepdim=True) + a,
    "cumprod": lambda a: (a * 0.5).cumprod(-1),
    "prod": lambda a: a.prod(-1, keepdim=True) * a,
    "masked_fill": lambda a: a.masked_fill(a < -0.5, 0.0),
    "gather": lambda a: a.gather(-1, torch.zeros_like(a, dtype=torch.long)) + a,
    "expand": lambda a: a[:1].expand_as(a) * a,
    "amax": lambda a: a.amax(-1, keepdim=True) - a,
    "mask_index": lambda a: a[a > 0].sum() + a,
    "detached_write": lambda a: a + a.detach().add_(1.0),  # writes a's array, untracked
    "chunk": lambda a: torch.cat(a.chunk(2, -1)[::-1], -1),
    "unbind": lambda a: sum(a.unbind(0)) + a,
    "narrow": lambda a: a.narrow(-1, 0, 2).sum(-1, keepdim=True) * a,
    "tril": lambda a: a.tril(),
    "roll": lambda a: a.roll(1, 0),
    "repeat": lambda a: a.repeat(2, 1)[: a.shape[0]],
    "row_copied": _row_copied,
    "column_bumped": _column_bumped,
    "scatter": lambda a: a.scatter(-1, torch.zeros_like(a, dtype=torch.long), 1.0),
    "clone_mul_": lambda a: a.clone().mul_(3),
    "sqrt_": lambda a: a.abs().add_(1e-3).sqrt_(),
    "addcmul": lambda a: torch.addcmul(a, a, a, value=0.5),
    "logsumexp": lambda a: a.logsumexp(-1, keepdim=True) - a,
    "var": lambda a: a.var(-1, keepdim=True) + a,
    "hardtanh_": lambda a: F.hardtanh(a * 1.0, inplace=True),
    "dropout_": lambda a: F.dropout(a * 1.0, 0.3, inplace=True),
    "rand_like": lambda a: a * torch.rand_like(a),
    "zeros_add_": lambda a: torch.zeros(a.shape).add_(a),
    "t_": _transposed_in_place,
    "unsqueeze_": lambda a: (a * 1.0).unsqueeze_(0).squeeze_(0),
    "add_y": lambda a, y: a + y,
    "mul_y": lambda a, y: a * y,
    "mm_y": lambda a, y: a @ y.t() @ y,
    "maximum_y": lambda a, y: torch.maximum(a, y),
    "div_y": lambda a, y: a / (y.abs() + 1),
}


def _program(seed: int) -> tuple:
    rng = random.Random(seed)
    return tuple(rng.choices(sorted(STEPS), k=rng.randint(2, 7)))


def _run(names, x, y, w):
    a = x * w
    for name in names:
        step = STEPS[name]
        if name.endswith("_y"):  # with y, or with itself once its shape is not y's
            a = step(a, y if a.shape == y.shape else a)
        else:
            a = step(a)
    return a


def _closure(names, w):
    def f(x, y):
        return _run(names, x, y, w)

    return f


def _outcome(fn, x, y, w, seed):
    torch.manual_seed(seed)
    try:
        out = fn(x, y)
        grads = torch.autograd.grad(out.sum(), (x, w), allow_unused=True)
    except RuntimeError as exc:
        return ("raised", str(exc).split("\n")[0])
    return ("ran", out.detach().numpy().copy(), *(g.numpy().copy() for g in grads))


def _same(a, b) -> bool:
    if a[0] != b[0] or len(a) != len(b):
        return False
    if a[0] == "raised":
        return a[1] == b[1]
    return all(np.array_equal(u, v, equal_nan=True) for u, v in zip(a[1:], b[1:]))


SEEDS = range(400)


@pytest.fixture(scope="module")
def replayed():
    return []


@pytest.mark.parametrize("block", range(8))
def test_random_programs_compiled_equal_eager_on_every_call(block, replayed):
    for seed in SEEDS[block::8]:
        torch._dynamo.reset()
        names = _program(seed)
        w = torch.randn(3, 4, requires_grad=True)

        f = _closure(names, w)
        run = torch.compile(f)
        rng = np.random.default_rng(seed)
        for call in range(4):
            x = torch.from_numpy(rng.standard_normal((3, 4)).astype(np.float32))
            y = torch.from_numpy(rng.standard_normal((3, 4)).astype(np.float32))
            x.requires_grad_()
            want = _outcome(f, x, y, w, call)
            got = _outcome(run, x, y, w, call)
            assert _same(got, want), (seed, names, call, got[:2], want[:2])
        replayed.append(torch._dynamo.replay_status(run)[0].replayed > 0)
    torch._dynamo.reset()


def test_most_random_programs_replay(replayed):
    # (run after the blocks: the comparison above must have exercised replays, not only the
    # Python path)
    assert len(replayed) == len(SEEDS)
    assert sum(replayed) > 0.6 * len(SEEDS)
