"""DistributedDataParallel's engine: gradient buckets all-reduced while backward still runs.

# Note [Gradient buckets]
# As PyTorch's Reducer: parameters are grouped into buckets (per dtype, up to `bucket_cap_mb`;
# the first iteration puts them all in one, then buckets are rebuilt once in the order the
# gradients became ready, agreed with rank 0). A forward that will sync arms the reducer; each
# parameter's post-accumulate-grad hook marks it ready, and a bucket whose parameters are all
# ready is flattened, divided by the world size and started as a non-blocking MPI all-reduce
# at once, while backward computes the rest. MPI advances it only inside MPI calls: a progress
# thread makes them where each rank has a core to spare (progress.py), else each later hook
# does. Buckets start in their index order on every rank, since MPI matches collectives by
# order. When the backward pass that marked them ends (the engine's `pass_finished`,
# See Note [Engine observers]) the reducer waits for them and writes the averages into
# `.grad`. A backward without an armed forward (under `no_sync()`) leaves the gradients
# local: they accumulate, and the next synced backward averages the total.
"""

from __future__ import annotations

import time
import weakref

import numpy as np

from ..autograd.observers import EngineObserver, observers
from . import mpi
from .arrays import array, tensor_of
from .progress import Progress

__all__ = ["Reducer", "assign_buckets", "unfinished_message"]

FIRST_BUCKET_BYTES = 1024 * 1024  # torch's dist._DEFAULT_FIRST_BUCKET_BYTES


def assign_buckets(order: list[int], nbytes: list[int], kinds: list, caps: list[int]) -> list:
    """torch's bucket assignment: walking `order`, per dtype, a bucket closes once it holds
    `caps[k]` bytes (k counts that dtype's closed buckets, staying on the last cap)."""
    open_buckets: dict = {}
    closed = []
    for i in order:
        indices, size, k = open_buckets.get(kinds[i], ([], 0, 0))
        indices.append(i)
        size += nbytes[i]
        if size >= caps[min(k, len(caps) - 1)]:
            closed.append(indices)
            open_buckets[kinds[i]] = ([], 0, k + 1)
        else:
            open_buckets[kinds[i]] = (indices, size, k)
    closed += [indices for indices, _, _ in open_buckets.values() if indices]
    return closed


class Bucket:
    """Parameters reduced together, and the all-reduce in flight for them."""

    __slots__ = ("indices", "pending", "buffer", "request")

    def __init__(self, indices: list[int]) -> None:
        self.indices = indices
        self.pending = len(indices)
        self.buffer = None
        self.request = None


class Reducer:
    """Averages the gradients of `params` over `pg` during backward (See Note [Gradient
    buckets]); `names` name them in errors."""

    def __init__(self, params, names, pg, first_cap: int, cap: int, find_unused, as_view=False):
        self.params, self.names, self.pg = list(params), list(names), pg
        self.as_view = as_view  # gradient_as_bucket_view: .grad becomes a view of its bucket
        self.caps = [first_cap, cap]
        self.find_unused = find_unused
        self.nbytes = [p.numel() * p.element_size() for p in self.params]
        self.kinds = [array(p).dtype for p in self.params]
        order = list(range(len(self.params)))
        caps = self.caps if find_unused else [1 << 62]  # torch: one bucket until the rebuild
        found = sorted(assign_buckets(order, self.nbytes, self.kinds, caps), key=min)
        self.layout = found[::-1]  # the last parameters' gradients come first
        self.rebuilt = find_unused  # torch rebuilds buckets only without unused-parameter search
        self.armed = False  # a synced forward ran: its backward reduces
        self.unsynced = False  # .grad holds local gradients that no all-reduce averaged
        self.ready_order: list[int] = []
        self.comm_wait_seconds = 0.0  # time backward's end spent waiting for all-reduces
        self.overlapped = 0.0  # share of the last iteration's all-reduce done during backward
        self.flats: list = []
        self.progress = Progress(mpi.job().MPI) if mpi.job().threads else None
        self._start_iteration()
        for i, p in enumerate(self.params):
            p.register_post_accumulate_grad_hook(lambda _, i=i: self._mark_ready(i))
        _watcher.reducers.add(self)
        observers.add(_watcher)  # once; until then backward passes pay nothing for DDP

    def _start_iteration(self) -> None:
        if len(self.flats) != len(self.layout):  # one flat buffer per bucket, kept across steps
            self.flats = [self._flat(indices) for indices in self.layout]
        self.buckets = [Bucket(list(indices)) for indices in self.layout]
        self.bucket_of = {i: b for b in self.buckets for i in b.indices}
        self.ready = [False] * len(self.params)
        self.used = np.zeros(len(self.params), np.int32)
        self.next_bucket = 0
        self.early_launches = 0  # buckets started while other gradients were still pending
        self.depth = None  # the backward pass (nesting depth) whose hooks marked parameters

    # ---- the iteration ---------------------------------------------------------------------

    def prepare_for_forward(self) -> None:
        """Before a synced forward: the previous synced backward must have finished."""
        if self.armed:
            raise RuntimeError(unfinished_message(self))

    def prepare_for_backward(self, outputs: list) -> None:
        """After a synced forward: arm; with `find_unused_parameters`, mark the parameters
        the outputs' graph does not reach as ready (they contribute zeros)."""
        self._start_iteration()
        self.armed = True
        if self.find_unused:
            reached = _reachable_leaves(outputs)
            for i, p in enumerate(self.params):
                if id(p) not in reached:
                    self._mark_ready(i, used=False)

    def _mark_ready(self, i: int, used: bool = True) -> None:
        if not self.armed:
            self.unsynced = True  # under no_sync(): See Note [Gradient buckets]
            return
        if self.ready[i]:
            raise RuntimeError(_marked_twice(self, i))
        self.ready[i] = True
        if used:
            self.used[i] = 1
            self.depth = _watcher.depth
            if not self.rebuilt:
                self.ready_order.append(i)
        bucket = self.bucket_of[i]
        bucket.pending -= 1
        while self.next_bucket < len(self.buckets) and not self.buckets[self.next_bucket].pending:
            self._launch(self.next_bucket)
            self.next_bucket += 1
        if self.progress is None:
            self._progress()

    def _flat(self, indices: list[int]) -> np.ndarray:
        kind = self.kinds[indices[0]]
        if kind.name == "bfloat16":  # MPI has no bfloat16: See Note [Collective buffers]
            kind = np.dtype(np.float32)
        return np.empty(sum(self.params[i].numel() for i in indices), kind)

    def _launch(self, index: int) -> None:
        bucket = self.buckets[index]
        early = any(b.pending for b in self.buckets)
        flat, offset, size = self.flats[index], 0, self.pg.size()
        for i in bucket.indices:
            grad, n = self.params[i].grad, self.params[i].numel()
            part = flat[offset : offset + n]
            offset += n
            if grad is None:
                part[...] = 0
            else:  # torch divides before summing (its default comm hook): one pass, copy and all
                np.divide(array(grad).reshape(-1), size, out=part, casting="same_kind")
        bucket.buffer = flat
        MPI = mpi.job().MPI
        bucket.request = self.pg.comm.Iallreduce(MPI.IN_PLACE, flat, op=MPI.SUM)
        if early:  # backward goes on: let the progress thread move this one along meanwhile
            self.early_launches += 1
            if self.progress is not None:
                self.progress.add(bucket.request)

    def _progress(self) -> None:
        # without a progress thread, each hook moves the started all-reduces along
        started = [b.request for b in self.buckets[: self.next_bucket] if b.request]
        if started:
            mpi.job().MPI.Request.Testall(started)

    @property
    def launched_all(self) -> bool:
        return self.next_bucket == len(self.buckets)

    def finalize(self) -> None:
        """At the end of the backward pass: wait for the buckets, write the averages."""
        started = time.perf_counter()
        if self.progress is not None:
            self.progress.take()
        done = sum(b.buffer.size for b in self.buckets if not b.request)  # null: completed
        self.overlapped = done / max(1, sum(b.buffer.size for b in self.buckets))
        self.pg.wait([b.request for b in self.buckets], "DistributedDataParallel's all_reduce")
        self.comm_wait_seconds += time.perf_counter() - started
        used = self.used
        if self.find_unused:  # a parameter unused on every rank keeps its .grad untouched
            used = used.copy()
            self.pg.wait([self.pg.comm.Iallreduce(mpi.job().MPI.IN_PLACE, used)], "all_reduce")
        for bucket in self.buckets:
            self._write_back(bucket, used)
        self.armed = False
        self.unsynced = False
        if not self.rebuilt:
            self._rebuild()

    def _write_back(self, bucket: Bucket, used) -> None:
        offsets = np.cumsum([self.params[i].numel() for i in bucket.indices])[:-1]
        for i, values in zip(bucket.indices, np.split(bucket.buffer, offsets)):
            if not used[i]:
                continue
            p = self.params[i]
            values = values.reshape(p.shape)
            target = None if p.grad is None else array(p.grad)
            if target is not None and np.may_share_memory(values, target):
                continue  # .grad is this bucket's view already (gradient_as_bucket_view)
            if self.as_view and values.dtype == self.kinds[i]:
                p.grad = tensor_of(values)
            elif target is None or not target.flags.writeable:
                p.grad = tensor_of(values.astype(self.kinds[i]))
            else:
                target[...] = values
        bucket.buffer = bucket.request = None

    def _rebuild(self) -> None:
        # every rank must bucket alike: rank 0's ready order decides (torch syncs it too)
        order = self.ready_order + [i for i in range(len(self.params)) if not self.ready[i]]
        order = np.array(order, np.int64)
        self.pg.wait([self.pg.comm.Ibcast(order, root=0)], "broadcast")
        self.layout = assign_buckets([int(i) for i in order], self.nbytes, self.kinds, self.caps)
        self.flats = []
        self.rebuilt = True

    def unready(self) -> list[int]:
        return [i for i, ready in enumerate(self.ready) if not ready]


def _reachable_leaves(outputs: list) -> set[int]:
    """ids of the leaves that the graph of `outputs` reaches (torch's unused search)."""
    seen, reached = set(), set()
    stack = [t.grad_fn for t in outputs if getattr(t, "grad_fn", None) is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None:
            reached.add(id(variable))
        stack.extend(child for child, _ in node.next_functions)
    return reached


def unfinished_message(reducer: Reducer) -> str:
    """torch's error for a forward before the previous backward reduced every gradient."""
    rank = reducer.pg.rank()
    missing = reducer.unready()
    names = ", ".join(reducer.names[i] for i in missing)
    return (
        "Expected to have finished reduction in the prior iteration before starting a new one. "
        "This error indicates that your module has parameters that were not used in producing "
        "loss. You can enable unused parameter detection by passing the keyword argument "
        "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by "
        "\nmaking sure all `forward` function outputs participate in calculating loss. \n"
        "If you already have done the above, then the distributed data parallel module wasn't "
        "able to locate the output tensors in the return value of your module's `forward` "
        "function. Please include the loss function and the structure of the return value of "
        "`forward` of your module when reporting this issue (e.g. list, dict, iterable).\n"
        f"Parameter indices which did not receive grad for rank {rank}: "
        + " ".join(str(i) for i in missing)
        + "\n In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to "
        "either INFO or DETAIL to print out information about which particular parameters did "
        "not receive gradient on this rank as part of this error"
        f"\n[dyngrad] parameters that got no gradient on rank {rank}: {names}"
    )


def _marked_twice(reducer: Reducer, i: int) -> str:
    return (
        f"Expected to mark a variable ready only once. This error is caused by one of the "
        "following reasons: 1) Use of a module parameter outside the `forward` function. "
        "2) Reused parameters in multiple reentrant backward passes.\n"
        f"[dyngrad] parameter `{reducer.names[i]}` (index {i}) got a second gradient in one "
        "iteration: a second backward through the same forward"
    )


class _Watcher(EngineObserver):
    """Ends each armed reducer's iteration when the backward pass that marked it ends."""

    def __init__(self) -> None:
        self.reducers: weakref.WeakSet = weakref.WeakSet()
        self.depth = 0

    def pass_started(self, task, roots) -> None:
        self.depth += 1

    def pass_finished(self, task) -> None:
        for reducer in list(self.reducers):
            if reducer.armed and reducer.depth == self.depth and reducer.launched_all:
                reducer.finalize()
        self.depth -= 1

    def pass_failed(self, task, exc) -> None:
        self.depth -= 1


_watcher = _Watcher()
