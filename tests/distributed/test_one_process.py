"""torch.distributed and DDP in a job of one process, side by side with torch's own (a world
of one, through a file store): names, argument errors, DDP's errors, state and gradients."""

from __future__ import annotations

import os
from datetime import timedelta

import numpy as np
import pytest

import dyngrad
import dyngrad.distributed as dist
from dyngrad.nn.parallel import DistributedDataParallel

from .launch import needs_mpi


@pytest.fixture
def one_rank():
    dist.init_process_group("gloo", rank=0, world_size=1)
    try:
        yield dist
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


@pytest.fixture
def torch_one_rank(torch, tmp_path):
    torch.distributed.init_process_group(
        "gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1
    )
    try:
        yield torch
    finally:
        torch.distributed.destroy_process_group()


def test_names_match_torch(torch):
    theirs = torch.distributed
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"):
        mine, other = getattr(dist.ReduceOp, name), getattr(theirs.ReduceOp, name)
        assert (str(mine), repr(mine), int(mine)) == (str(other), repr(other), int(other))
        assert dist.supports_complex(mine) == theirs.supports_complex(other)
    assert dist.ReduceOp.SUM is dist.ReduceOp.RedOpType.SUM
    assert dist.Backend("GLOO") == theirs.Backend("GLOO") == "gloo"
    assert dist.Backend.MPI == theirs.Backend.MPI
    assert dist.default_pg_timeout == theirs.default_pg_timeout == timedelta(minutes=30)
    assert dist.GroupMember.NON_GROUP_MEMBER == theirs.GroupMember.NON_GROUP_MEMBER
    assert issubclass(dist.DistBackendError, RuntimeError)


def test_before_init_calls_raise_as_torch(torch):
    for lib in (dyngrad, torch):
        assert lib.distributed.is_initialized() is False
        for call in (lib.distributed.get_rank, lambda: lib.distributed.all_reduce(lib.ones(1))):
            with pytest.raises(ValueError, match="Default process group has not been initialized"):
                call()
    with pytest.raises(RuntimeError, match="LOCAL_RANK is not in the environment"):
        os.environ.pop("LOCAL_RANK", None)
        dist.get_node_local_rank()
    assert dist.get_node_local_rank(fallback_rank=3) == 3


@needs_mpi
def test_init_without_a_rank_raises_torchs_env_error(monkeypatch, torch):
    for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(name, raising=False)
    messages = []
    for lib in (dyngrad, torch):
        with pytest.raises(ValueError) as info:
            lib.distributed.init_process_group("gloo")
        messages.append(str(info.value))
    assert (
        messages[0]
        == messages[1]
        == (
            "Error initializing torch.distributed using env:// rendezvous: environment variable "
            "RANK expected, but not set"
        )
    )


@needs_mpi
def test_init_checks_its_arguments(monkeypatch):
    with pytest.raises(RuntimeError, match="Distributed package doesn't have NCCL built in"):
        dist.init_process_group("nccl", rank=0, world_size=1)
    with pytest.raises(TypeError, match="Expected timeout argument to be of type"):
        dist.init_process_group("gloo", rank=0, world_size=1, timeout=30)
    with pytest.raises(RuntimeError, match=r"rank 0 of 1\.\n\[dyngrad\] .* `mpiexec -n N"):
        dist.init_process_group("gloo", rank=0, world_size=2)  # mp.spawn's way: no MPI job
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    dist.init_process_group()  # the environment's rank and size, torchrun's way
    try:
        assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, "gloo")
        with pytest.raises(ValueError, match="trying to initialize the default process group"):
            dist.init_process_group("gloo")
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()


@needs_mpi
def test_collectives_in_a_world_of_one_as_torch(one_rank, torch_one_rank):
    for lib in (dyngrad, torch_one_rank):
        t = lib.tensor([1.0, 2.0])
        lib.distributed.all_reduce(t, op=lib.distributed.ReduceOp.AVG)
        out = [lib.zeros(2)]
        lib.distributed.all_gather(out, t + 1)
        objects = [None]
        lib.distributed.all_gather_object(objects, {"x": 1})
        work = lib.distributed.all_reduce(t, async_op=True)
        assert work.wait() is True and work.is_completed()
        assert (t.tolist(), out[0].tolist(), objects) == ([1.0, 2.0], [2.0, 3.0], [{"x": 1}])
        with pytest.raises(ValueError, match="Invalid destination rank"):
            lib.distributed.send(t, dst=0)
        with pytest.raises(TypeError, match="Expected parameter `tensor` of type torch.Tensor"):
            lib.distributed.broadcast([1.0], src=0)
    assert dist.get_pg_count() == 1 and dist.get_process_group_ranks(None) == [0]


def ddp_pair(torch, make, **options):
    ours, theirs = make(dyngrad), make(torch)
    ours.load_state_dict({k: dyngrad.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return DistributedDataParallel(ours, **options), torch.nn.parallel.DistributedDataParallel(
        theirs, **options
    )


def mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))


@needs_mpi
def test_ddp_is_the_module_and_refuses_what_torch_refuses(one_rank, torch_one_rank):
    torch = torch_one_rank
    ours, theirs = ddp_pair(torch, mlp)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert (ours.bucket_bytes_cap, ours.broadcast_buffers, ours.dim) == (
        theirs.bucket_bytes_cap,
        theirs.broadcast_buffers,
        theirs.dim,
    )
    for options in ({"device_ids": [0]}, {"device_ids": [0, 1]}):
        with pytest.raises(ValueError) as mine:
            DistributedDataParallel(mlp(dyngrad), **options)
        with pytest.raises(ValueError) as other:
            torch.nn.parallel.DistributedDataParallel(mlp(torch), **options)
        assert str(mine.value) == str(other.value)
    frozen = [mlp(lib).requires_grad_(False) for lib in (dyngrad, torch)]
    with pytest.raises(RuntimeError, match="is not needed when a module doesn't have any"):
        DistributedDataParallel(frozen[0])
    with pytest.raises(RuntimeError, match="is not needed when a module doesn't have any"):
        torch.nn.parallel.DistributedDataParallel(frozen[1])
    with pytest.warns(FutureWarning, match="`broadcast_buffers` is deprecated"):
        DistributedDataParallel(mlp(dyngrad), broadcast_buffers=False)


class Heads:
    """A trunk and two heads: the second is left out of the loss."""

    @staticmethod
    def make(lib):
        class Model(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.trunk, self.used, self.unused = (lib.nn.Linear(3, 3) for _ in range(3))

            def forward(self, x):
                return self.used(self.trunk(x))

        return Model()


@needs_mpi
def test_ddp_unused_parameters_error_and_search_as_torch(one_rank, torch_one_rank):
    torch = torch_one_rank
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    messages = []
    for model, lib in zip(ddp_pair(torch, Heads.make), (dyngrad, torch)):
        model(lib.from_numpy(x)).sum().backward()
        with pytest.raises(RuntimeError) as info:
            model(lib.from_numpy(x))
        messages.append(str(info.value).split("\n[dyngrad]")[0])
    assert messages[0] == messages[1]
    pair = ddp_pair(torch, Heads.make, find_unused_parameters=True)
    for model, lib in zip(pair, (dyngrad, torch)):
        for _ in range(2):
            model(lib.from_numpy(x)).sum().backward()
    grads = [[p.grad for p in model.module.parameters()] for model in pair]
    assert [g is None for g in grads[0]] == [g is None for g in grads[1]]
    for ours, theirs in zip(*grads):
        if ours is not None:
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


@needs_mpi
def test_ddp_no_sync_and_training_follow_torch(one_rank, torch_one_rank):
    torch = torch_one_rank
    pair = ddp_pair(torch, mlp)
    optimizers = [lib.optim.SGD(m.parameters(), lr=0.1) for m, lib in zip(pair, (dyngrad, torch))]
    x = np.random.default_rng(1).standard_normal((4, 4)).astype(np.float32)
    for model, opt, lib in zip(pair, optimizers, (dyngrad, torch)):
        with model.no_sync():
            model(lib.from_numpy(x)).square().mean().backward()
        assert model.require_backward_grad_sync
        model(lib.from_numpy(x[::-1].copy())).square().mean().backward()
        opt.step()
    for ours, theirs in zip(*(m.module.parameters() for m in pair)):
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-6)
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), atol=1e-6)
