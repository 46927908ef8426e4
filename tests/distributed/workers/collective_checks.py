"""Checks each rank runs: every collective against its definition, on this world size."""

from __future__ import annotations

import warnings
from datetime import timedelta

import numpy as np

import dyngrad as torch
import dyngrad.distributed as dist

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def close(got, expected, tol=1e-6):
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=tol, atol=tol)


@check
def all_reduce_ops(r, w):
    values = np.arange(1, w + 1, dtype=np.float64)  # rank k contributes k + 1
    for op, expected in [
        (dist.ReduceOp.SUM, values.sum()),
        (dist.ReduceOp.AVG, values.mean()),
        (dist.ReduceOp.MAX, values.max()),
        (dist.ReduceOp.MIN, values.min()),
        (dist.ReduceOp.PRODUCT, values.prod()),
    ]:
        t = torch.tensor([r + 1.0, 2.0 * (r + 1)])
        assert dist.all_reduce(t, op=op) is None
        close(t, [expected, 2 * expected if op != dist.ReduceOp.PRODUCT else 2**w * expected])


@check
def all_reduce_dtypes_and_layouts(r, w):
    ints = torch.tensor([r, 1])
    dist.all_reduce(ints)
    assert ints.dtype == torch.int64 and ints.tolist() == [w * (w - 1) // 2, w]
    flags = torch.tensor([r == 0, False, True])
    dist.all_reduce(flags)  # SUM of bools is a logical or
    assert flags.tolist() == [True, False, True]
    half = torch.tensor([1.5, -2.0], dtype=torch.bfloat16)
    dist.all_reduce(half)
    assert half.dtype == torch.bfloat16 and half.float().tolist() == [1.5 * w, -2.0 * w]
    z = torch.tensor([1 + 2j * r])
    dist.all_reduce(z)
    close(z.numpy(), [w + 2j * (w * (w - 1) // 2)])
    base = torch.arange(6.0).reshape(2, 3)
    view = base.t()  # not contiguous: the result lands in `base` through the view
    dist.all_reduce(view)
    close(base, np.arange(6.0).reshape(2, 3) * w)
    p = torch.nn.Parameter(torch.ones(2))
    dist.all_reduce(p)  # a leaf that requires grad, as torch allows
    close(p.detach(), [w, w])


@check
def all_reduce_refusals(r, w):
    for op, kind, match in [
        (dist.ReduceOp.MAX, ValueError, "all_reduce does not support RedOpType.MAX on complex"),
        (dist.ReduceOp.BAND, RuntimeError, "Cannot use ReduceOp.BAND with non-integral dtype"),
    ]:
        t = torch.tensor([1 + 1j]) if kind is ValueError else torch.ones(1)
        try:
            dist.all_reduce(t, op=op)
        except kind as exc:
            assert match in str(exc), exc
        else:
            raise AssertionError(f"{op} did not raise")
    try:
        dist.all_reduce([1.0])
    except TypeError as exc:
        assert "Expected parameter `tensor` of type torch.Tensor" in str(exc)


@check
def async_work(r, w):
    t = torch.full((3,), float(r))
    work = dist.all_reduce(t, async_op=True)
    assert type(work).__name__ == "Work"
    assert work.wait() is True and work.is_completed() and work.is_success()
    close(t, [w * (w - 1) / 2] * 3)
    assert work.result()[0] is t
    assert dist.barrier(async_op=True).wait() is True


@check
def broadcast_and_reduce(r, w):
    t = torch.tensor([float(r), -1.0])
    dist.broadcast(t, src=w - 1)
    close(t, [w - 1, -1.0])
    t = torch.tensor([float(r + 1)])
    dist.reduce(t, dst=w - 1)
    close(t, [w * (w + 1) / 2] if r == w - 1 else [r + 1])
    ints = torch.tensor([7 * r], dtype=torch.int32)
    dist.broadcast(ints, src=0)
    assert ints.tolist() == [0] and ints.dtype == torch.int32


@check
def gathers(r, w):
    out = [torch.zeros(2) for _ in range(w)]
    dist.all_gather(out, torch.tensor([r, 10.0 + r]))
    close(torch.stack(out), [[k, 10 + k] for k in range(w)])
    flat = torch.zeros(2 * w)
    dist.all_gather_into_tensor(flat, torch.tensor([r, 10.0 + r]))
    close(flat, [v for k in range(w) for v in (k, 10 + k)])
    dst = w - 1
    gathered = [torch.zeros(1, 2) for _ in range(w)] if r == dst else None
    dist.gather(torch.full((1, 2), float(r)), gathered, dst=dst)
    if r == dst:
        close(torch.cat(gathered), [[k, k] for k in range(w)])
    try:
        dist.all_gather([torch.zeros(3) for _ in range(w)], torch.zeros(2))
    except RuntimeError as exc:
        assert "invalid tensor size at index 0 (expected (2), got (3))" in str(exc)


@check
def scatters(r, w):
    out = torch.zeros(2)
    pieces = [torch.tensor([k, 100.0 + k]) for k in range(w)] if r == 0 else None
    dist.scatter(out, pieces, src=0)
    close(out, [r, 100 + r])
    inputs = torch.arange(2.0 * w) + r  # rank k's row j is 2j + k, 2j + 1 + k
    mine = torch.zeros(2)
    dist.reduce_scatter_tensor(mine, inputs)
    shift = w * (w - 1) / 2
    close(mine, [w * 2 * r + shift, w * (2 * r + 1) + shift])
    dist.reduce_scatter_tensor(mine, inputs, op=dist.ReduceOp.AVG)
    close(mine, [2 * r + shift / w, 2 * r + 1 + shift / w])
    listed = torch.zeros(2)
    dist.reduce_scatter(listed, [torch.full((2,), float(k + r)) for k in range(w)])
    close(listed, [w * r + shift] * 2)
    swapped = torch.zeros(w)
    dist.all_to_all_single(swapped, torch.arange(float(w)) + 10 * r)
    close(swapped, [10 * k + r for k in range(w)])


@check
def point_to_point(r, w):
    right, left = (r + 1) % w, (r - 1) % w
    got = torch.zeros(3)
    sending = dist.isend(torch.full((3,), float(r)), dst=right, tag=5)
    receiving = dist.irecv(got, src=left, tag=5)
    sending.wait()
    receiving.wait()
    close(got, [left] * 3)
    if r == 0:
        for _ in range(w - 1):
            t = torch.zeros(1)
            sender = dist.recv(t)  # from any rank: recv says which
            assert t.item() == sender * 10
    else:
        dist.send(torch.tensor([r * 10.0]), dst=0)


@check
def objects(r, w):
    everyone = [None] * w
    dist.all_gather_object(everyone, {"rank": r, "t": torch.ones(2) * r})
    assert [o["rank"] for o in everyone] == list(range(w))
    close(everyone[-1]["t"], [w - 1, w - 1])
    items = [{"a": 1}, "two", 3] if r == min(1, w - 1) else [None] * 3
    dist.broadcast_object_list(items, src=min(1, w - 1))
    assert items == [{"a": 1}, "two", 3]
    gathered = [None] * w if r == 0 else None
    dist.gather_object(("rank", r), gathered, dst=0)
    if r == 0:
        assert gathered == [("rank", k) for k in range(w)]
    out = [None]
    dist.scatter_object_list(out, [f"for {k}" for k in range(w)] if r == 0 else None, src=0)
    assert out == [f"for {r}"]


@check
def groups(r, w):
    assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (r, w, "gloo")
    evens = list(range(0, w, 2))
    g = dist.new_group(evens)
    if r in evens:
        assert dist.get_rank(g) == evens.index(r) and dist.get_world_size(g) == len(evens)
        assert dist.get_process_group_ranks(g) == evens
        t = torch.ones(1) * r
        dist.all_reduce(t, group=g)
        close(t, [sum(evens)])
        t = torch.zeros(1) + r
        dist.broadcast(t, src=evens[-1], group=g)  # src is a global rank
        close(t, [evens[-1]])
    else:
        assert g == dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(g) == -1
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert dist.all_reduce(torch.ones(1), group=g) is None
        assert "which does not belong to the given group" in str(caught[0].message)


@check
def timeout_raises(r, w):
    short = dist.new_group(timeout=timedelta(seconds=0.3))
    t = torch.ones(1)
    if r == 0:  # alone in a collective: it times out instead of hanging
        try:
            dist.all_reduce(t, group=short)
        except dist.DistBackendError as exc:
            assert "Timed out waiting 300ms for all_reduce to complete" in str(exc)
        else:
            raise AssertionError("no timeout")
    dist.barrier()
    if r != 0:  # complete rank 0's abandoned all_reduce, so that the group can be freed
        dist.all_reduce(t, group=short)
    dist.barrier()
