"""Checks each rank runs: DistributedDataParallel against one process on the global batch."""

from __future__ import annotations

import numpy as np

import dyngrad as torch
import dyngrad.distributed as dist
import dyngrad.nn as nn
import dyngrad.nn.functional as F
from dyngrad.nn.parallel import DistributedDataParallel as DDP
from dyngrad.utils.data import DataLoader, DistributedSampler, TensorDataset

CHECKS = []
TOL = 2e-5


def check(fn):
    CHECKS.append(fn)
    return fn


def data(seed, *shape, classes=None):
    rng = np.random.default_rng(seed)
    if classes is not None:
        return torch.from_numpy(rng.integers(0, classes, shape))
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))


def mlp(seed):
    torch.manual_seed(seed)
    return nn.Sequential(
        nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 5)
    )


def cnn(seed):
    torch.manual_seed(seed)
    return nn.Sequential(
        nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(36, 3)
    )


def same(a, b, tol=TOL):
    for (name, x), y in zip(a.named_parameters(), b.parameters()):
        np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), atol=tol, err_msg=name)


def train_against_one_process(r, w, make, shape, classes, optimizer, **ddp_options):
    model, reference = DDP(make(r), **ddp_options), make(0)  # DDP takes rank 0's weights
    opt, ref_opt = optimizer(model.parameters()), optimizer(reference.parameters())
    batch = 4
    for step in range(3):
        x = data(step, batch * w, *shape)
        y = data(100 + step, batch * w, classes=classes)
        mine = slice(r * batch, (r + 1) * batch)
        opt.zero_grad()
        F.cross_entropy(model(x[mine]), y[mine]).backward()
        opt.step()
        ref_opt.zero_grad()
        F.cross_entropy(reference(x), y).backward()
        ref_opt.step()
    same(model.module, reference)
    return model


@check
def replicas_start_as_rank_0(r, w):
    model = mlp(seed=r)
    model.register_buffer("seen", torch.full((2,), float(r)))
    ddp = DDP(model)
    keys = list(ddp.state_dict())
    assert ddp.module is model and keys[:2] == ["module.seen", "module.0.weight"]
    assert model.seen.tolist() == [0.0, 0.0]
    same(model, mlp(seed=0), tol=0)


@check
def mlp_matches_one_process(r, w):
    sgd = lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9)  # noqa: E731
    model = train_against_one_process(r, w, mlp, (20,), 5, sgd, bucket_cap_mb=0.002)
    reducer = model.reducer
    assert len(reducer.buckets) > 1, "small caps give several buckets once rebuilt"
    assert reducer.early_launches >= 1, "buckets start while backward still runs"


@check
def cnn_matches_one_process(r, w):
    adam = lambda params: torch.optim.Adam(params, lr=0.01)  # noqa: E731
    train_against_one_process(r, w, cnn, (1, 8, 8), 3, adam)


@check
def no_sync_accumulates_like_a_large_batch(r, w):
    model, reference = DDP(mlp(r)), mlp(0)
    micro = [(data(m, 3 * w, 20), data(10 + m, 3 * w, classes=5)) for m in range(3)]
    mine = slice(3 * r, 3 * r + 3)
    for m, (x, y) in enumerate(micro):
        if m < 2:
            with model.no_sync():
                F.cross_entropy(model(x[mine]), y[mine]).backward()
            assert model.reducer.unsynced
        else:
            F.cross_entropy(model(x[mine]), y[mine]).backward()
        F.cross_entropy(reference(x), y).backward()
    assert not model.reducer.unsynced
    for p, q in zip(model.module.parameters(), reference.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), atol=TOL)


@check
def uneven_last_batches(r, w):
    dataset = TensorDataset(data(7, 22, 20), data(8, 22, classes=5))
    samplers = [DistributedSampler(dataset, w, k, seed=3) for k in range(w)]
    model, reference = DDP(mlp(r)), mlp(0)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1)
    sizes = []
    for epoch in range(2):
        for s in samplers:
            s.set_epoch(epoch)
        everyone = [list(s) for s in samplers]
        for xb, yb in DataLoader(dataset, batch_size=4, sampler=samplers[r]):
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
            sizes.append(len(xb))
        for start in range(0, len(everyone[0]), 4):
            rows = [i for mine in everyone for i in mine[start : start + 4]]
            ref_opt.zero_grad()
            F.cross_entropy(
                reference(dataset.tensors[0][rows]), dataset.tensors[1][rows]
            ).backward()
            ref_opt.step()
    assert sizes[-1] < 4, sizes
    same(model.module, reference)


class Branches(nn.Module):
    def __init__(self, seed):
        super().__init__()
        torch.manual_seed(seed)
        self.trunk, self.left, self.right, self.idle = (nn.Linear(4, 4) for _ in range(4))

    def forward(self, x, go_left):
        h = self.trunk(x).relu()
        return (self.left if go_left else self.right)(h)


@check
def find_unused_parameters_averages_what_was_used(r, w):
    model = DDP(Branches(r), find_unused_parameters=True)
    x = data(20, w, 3, 4)
    model(x[r], go_left=r % 2 == 0).pow(2).sum().backward()
    expected = {}
    for k in range(w):  # every rank's gradient, computed here on rank 0's weights
        ref = Branches(0)
        ref(x[k], go_left=k % 2 == 0).pow(2).sum().backward()
        for name, p in ref.named_parameters():
            if p.grad is not None:
                expected[name] = expected.get(name, 0) + p.grad.numpy() / w
    for name, p in model.module.named_parameters():
        if name.startswith("idle"):
            assert p.grad is None, "unused on every rank: its .grad stays untouched"
        else:
            np.testing.assert_allclose(p.grad.numpy(), expected[name], atol=TOL, err_msg=name)


@check
def unused_parameter_raises_torch_error(r, w):
    model = DDP(Branches(0))
    x = data(21, 3, 4)
    model(x, go_left=True).sum().backward()
    try:
        model(x, go_left=True)
    except RuntimeError as exc:
        text = str(exc)
        assert text.startswith("Expected to have finished reduction in the prior iteration")
        assert f"Parameter indices which did not receive grad for rank {r}: 4 5 6 7\n" in text
        assert "right.weight, right.bias, idle.weight, idle.bias" in text
    else:
        raise AssertionError("no error")


@check
def buffers_follow_rank_0_before_each_forward(r, w):
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2)))
    norm = model.module[1]
    x = data(30 + r, 5, 3)
    model(x).sum().backward()
    after_first = [None]
    dist.broadcast_object_list([norm.running_mean.clone()] if r == 0 else after_first, src=0)
    rank0 = norm.running_mean.clone() if r == 0 else after_first[0]
    out = model(x)  # starts from rank 0's running mean, then adds this rank's batch
    batch_mean = model.module[0](x).detach().mean(0)
    np.testing.assert_allclose(
        norm.running_mean.numpy(), (0.9 * rank0 + 0.1 * batch_mean).numpy(), atol=1e-6
    )
    out.sum().backward()
