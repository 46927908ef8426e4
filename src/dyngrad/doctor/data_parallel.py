"""Data-parallel checks: a DistributedSampler without set_epoch, replicas whose parameters
differ across ranks, and a step on gradients no all-reduce averaged (no_sync).

# Note [Comparing ranks]
# Whether the replicas still agree is a question for every rank at once: at optimizer steps
# 1, 2, 3, 4, 8, 16, ... each rank hashes the parameters it is about to update (a fixed-size
# record: the count, then 64 slots, parameter i XORed into slot i % 64) and starts a
# non-blocking all-gather of the records on the job's tools communicator, apart from the
# script's own traffic. It is read at the next check (or at the end, waiting a few seconds at
# most), so the doctor never makes a rank wait for the others while the script runs.
# DistributedDataParallel keeps replicas bitwise equal (rank 0's parameters broadcast, the
# same averaged gradients on every rank), so any difference is a finding.
"""

from __future__ import annotations

import hashlib
import time
import weakref

import numpy as np

from ..distributed import mpi
from ..distributed.arrays import array
from ..nn.parallel.distributed import DistributedDataParallel
from ..optim import optimizer as optimizer_module
from ..utils.data.distributed import DistributedSampler
from .sites import user_site

__all__ = ["install", "finish"]

SLOTS = 64
SETTLE_SECONDS = 10.0  # the most the end of a session waits for the other ranks' records


class _State:
    def __init__(self) -> None:
        self.epochs: dict[int, tuple] = {}  # id(sampler) -> (weakref, epochs iterated)
        self.steps = 0
        self.pending: list = []  # exchanges in flight: (request, records, site, names)


def install(session, patcher) -> None:
    state = session.data_parallel = _State()
    patcher.set(DistributedSampler, "__iter__", _iterating(session, DistributedSampler.__iter__))
    previous = optimizer_module.step_observer

    def observe(optimizer) -> None:
        if previous is not None:
            previous(optimizer)
        if not session.busy:
            _on_step(session, state, optimizer)

    patcher.set(optimizer_module, "step_observer", observe)


def _iterating(session, original):
    def iterate(self):
        if not session.busy and self.shuffle:
            _check_epoch(session, self)
        return original(self)

    iterate.__name__ = iterate.__qualname__ = "__iter__"
    return iterate


def _check_epoch(session, sampler) -> None:
    epochs = session.data_parallel.epochs
    key = id(sampler)
    entry = epochs.get(key)
    if entry is None or entry[0]() is not sampler:
        entry = epochs[key] = (weakref.ref(sampler), set())
    if sampler.epoch in entry[1]:
        session.report.add(
            "missing-set-epoch",
            user_site(),
            f"this DistributedSampler is iterated again with epoch {sampler.epoch}: without "
            "set_epoch() every epoch visits the samples in the same order, and each rank "
            "always gets the same shard",
        )
    entry[1].add(sampler.epoch)


# ---- optimizer steps ------------------------------------------------------------------------


def _on_step(session, state: _State, optimizer) -> None:
    params = [p for group in optimizer.param_groups for p in group["params"]]
    site = user_site()
    wrappers = _ddp_modules(session)
    _check_unsynced(session, wrappers, params, site)
    job = mpi.current_job()
    if job is None or job.size == 1 or not job.active:
        return
    state.steps += 1
    n = state.steps
    if n <= 4 or n & (n - 1) == 0:
        _settle(session, state, wait=False)
        _exchange(job, state, params, site, _names(session, params), wrappers)


def _ddp_modules(session) -> list:
    return [
        model.module
        for model in session.models.values()
        if isinstance(model.module, DistributedDataParallel)
    ]


def _check_unsynced(session, wrappers, params, site) -> None:
    stepped = {id(p) for p in params if p.grad is not None}
    for ddp in wrappers:
        if ddp.reducer.unsynced and any(id(p) in stepped for p in ddp.reducer.params):
            session.report.add(
                "unsynced-grads",
                site,
                "optimizer.step() applies gradients that no all-reduce averaged: the last "
                "backward ran under DistributedDataParallel.no_sync(), so each rank steps "
                "with its own gradients and the replicas drift apart",
            )


def _names(session, params) -> dict[int, str]:
    names = {}
    for model in session.models.values():
        for name, p in model.module.named_parameters():
            names.setdefault(id(p), name)
    return {i: names.get(id(p), f"param {i}") for i, p in enumerate(params)}


def _exchange(job, state: _State, params, site, names, wrappers) -> None:
    record = np.zeros(SLOTS + 1, np.int64)
    record[0] = len(params)
    for i, p in enumerate(params):
        data = np.ascontiguousarray(array(p)).tobytes()
        digest = hashlib.blake2b(data, digest_size=8).digest()
        record[1 + i % SLOTS] ^= int.from_bytes(digest, "little", signed=True)
    records = np.zeros((job.size, SLOTS + 1), np.int64)
    request = job.tools.Iallgather(record, records)
    wrapped = {id(p) for ddp in wrappers for p in ddp.module.parameters()}
    unwrapped = any(id(p) not in wrapped for p in params)
    state.pending.append((request, records, site, names, unwrapped))


def _settle(session, state: _State, wait: bool) -> None:
    """Read the exchanges that completed (with `wait`, give the others a few seconds)."""
    deadline = time.monotonic() + (SETTLE_SECONDS if wait else 0.0)
    while state.pending:
        request, records, site, names, unwrapped = state.pending[0]
        while not request.Test():
            if time.monotonic() > deadline:
                return
            time.sleep(1e-3)
        state.pending.pop(0)
        _compare(session, records, site, names, unwrapped)


def _compare(session, records: np.ndarray, site, names, unwrapped: bool) -> None:
    differ = [rank for rank in range(1, len(records)) if (records[rank] != records[0]).any()]
    if not differ:
        return
    slots = {s for rank in differ for s in np.nonzero(records[rank][1:] != records[0][1:])[0]}
    which = [name for i, name in names.items() if i % SLOTS in slots]
    listed = ", ".join(f"`{name}`" for name in which[:4]) + (", ..." if len(which) > 4 else "")
    why = (
        "the model is not wrapped in DistributedDataParallel"
        if unwrapped
        else "they were changed on some ranks only after DistributedDataParallel made them equal"
    )
    session.report.add(
        "params-differ",
        site,
        f"parameters {listed} hold different values on rank 0 and rank {differ[0]} before this "
        f"step ({why}): the replicas have diverged and each rank trains a model of its own",
    )


def finish(session) -> None:
    """Read the last exchanges; mark the report with this process's rank in the job."""
    state = getattr(session, "data_parallel", None)
    if state is not None and not session.failed:
        _settle(session, state, wait=True)
    job = mpi.current_job()
    if job is not None and job.size > 1:
        session.report.rank = (job.rank, job.size)
