"""What runs inside a DataLoader worker process: seeding, fetching, and reporting errors."""

from __future__ import annotations

import functools
import os
import pickle
import sys

import numpy as np

from ...graph.grad_mode import state as grad_state
from ...runtime.random import manual_seed
from ...runtime.threads import set_num_threads
from .result_pipe import STATUS_CHECK_INTERVAL, ResultWriter

__all__ = [
    "get_worker_info",
    "worker_info_class",
    "ExceptionWrapper",
    "worker_loop",
    "make_fetcher",
]


@functools.cache
def worker_info_class():
    """`WorkerInfo`, as torch 2.13's: a frozen dataclass with slots. Made in the worker process
    that needs it (the main process never does: `dataclasses` would slow `import dyngrad`)."""
    import dataclasses  # only in a worker process

    fields = [
        ("id", int),
        ("num_workers", int),
        ("seed", int),
        ("dataset", object),
        # PyTorch's thread workers' RNG states; process workers have none
        ("rng", object, dataclasses.field(default=None)),
        ("worker_method", object, dataclasses.field(default="multiprocessing")),
    ]
    namespace = {
        "__doc__": "Matches `torch.utils.data.get_worker_info()`'s result: who this worker is.",
        "__module__": __name__,
    }
    return dataclasses.make_dataclass(
        "WorkerInfo", fields, namespace=namespace, frozen=True, slots=True
    )


def __getattr__(name: str):
    if name == "WorkerInfo":
        return worker_info_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_worker_info = None  # in a worker process, its WorkerInfo (`worker_info_class()`)


def get_worker_info():
    """Matches `torch.utils.data.get_worker_info`: None in the main process."""
    return _worker_info


class KeyErrorMessage(str):
    """A KeyError's message printed as is (KeyError would quote a multi-line text)."""

    def __repr__(self) -> str:
        return self


class ExceptionWrapper:
    """An exception and its traceback text, carried from a worker to the main process."""

    def __init__(self, exc_info=None, where: str = "in background") -> None:
        exc_info = exc_info or sys.exc_info()
        self.exc_type = exc_info[0]
        import traceback  # an error path (the stdlib modules a worker needs load in it)

        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where
        try:
            pickle.dumps(self.exc_type)
        except Exception:  # a class the main process cannot import: say RuntimeError
            self.exc_type = RuntimeError

    def reraise(self):
        """Raise in this process, with the worker's traceback in the message."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:  # an exception type whose constructor wants other arguments
            raise RuntimeError(msg) from None
        raise exception


class ResumeIteration:
    """Sent to persistent workers at a new epoch; echoed back once they are ready."""


class IterableDatasetStopIteration:
    """A worker's iterable dataset is exhausted (sent to the main process)."""

    __slots__ = ("worker_id",)

    def __init__(self, worker_id: int) -> None:
        self.worker_id = worker_id

    def __reduce__(self):
        return IterableDatasetStopIteration, (self.worker_id,)


class MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last) -> None:
        self.dataset, self.auto_collation = dataset, auto_collation
        self.collate_fn, self.drop_last = collate_fn, drop_last

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        getitems = getattr(self.dataset, "__getitems__", None)
        data = getitems(index) if getitems else [self.dataset[i] for i in index]
        return self.collate_fn(data)


class IterableFetcher(MapFetcher):
    def __init__(self, dataset, auto_collation, collate_fn, drop_last) -> None:
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if len(data) == 0 or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def make_fetcher(iterable: bool, dataset, auto_collation, collate_fn, drop_last):
    kind = IterableFetcher if iterable else MapFetcher
    return kind(dataset, auto_collation, collate_fn, drop_last)


def seed_worker(base_seed: int, worker_id: int) -> int:
    """Seed dyngrad, `random` and NumPy's global generator from `base_seed + worker_id`."""
    import random  # in the worker process

    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    # PyTorch's hash of (worker, base seed) into NumPy's state: SeedSequence's, word for word
    np.random.seed(
        np.random.SeedSequence(
            [worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]
        ).generate_state(4)
    )
    return seed


class ManagerWatchdog:
    """Whether the main process still lives (PyTorch's `ManagerWatchdog`, forkserver too).

    A forked or spawned worker is the main process's child: it is orphaned (adopted by init
    or a subreaper) when the main process dies, and `os.getppid()` changes. A forkserver
    worker is the fork server's child, and the server outlives the main process (each worker
    holds its "alive" descriptor): watch instead the sentinel pipe of
    `multiprocessing.parent_process()`, whose write end the main process holds.
    """

    def __init__(self, main_pid: int, start_method: str) -> None:
        self._main_pid = main_pid
        self._sentinel = None
        if start_method == "forkserver":
            import multiprocessing  # not at import time: See `_context` in dataloader.py

            self._sentinel = multiprocessing.parent_process().sentinel

    def is_alive(self) -> bool:
        if self._sentinel is None:
            return os.getppid() == self._main_pid
        from multiprocessing.connection import wait  # loaded in a worker process already

        return not wait([self._sentinel], timeout=0)


def worker_loop(spec: dict, index_queue, result_conn, done_event, base_seed: int, worker_id: int):
    """The body of worker `worker_id`: fetch the batches asked for until told to stop.

    Grad mode is off in workers (dyngrad's choice; PyTorch leaves it on): data loading that
    touches tensors requiring grad would otherwise build graphs nobody backpropagates
    through, and keep them alive in every worker (seed 004, "事故一").
    """
    global _worker_info
    grad_state.enabled = False
    set_num_threads(1)  # as PyTorch's workers: one thread each, BLAS's included
    watchdog = ManagerWatchdog(spec["main_pid"], spec["start_method"])
    seed = seed_worker(base_seed, worker_id)
    _worker_info = worker_info_class()(worker_id, spec["num_workers"], seed, spec["dataset"])
    where = f"in DataLoader worker process {worker_id}"
    init_error, fetcher = None, None
    try:
        if spec["worker_init_fn"] is not None:
            spec["worker_init_fn"](worker_id)
        fetcher = _fetcher(spec)
    except Exception:
        init_error = ExceptionWrapper(where=where)
    results = ResultWriter(result_conn, lambda: watchdog.is_alive() and not done_event.is_set())
    try:
        _serve(spec, fetcher, init_error, index_queue, results, done_event, watchdog)
    except KeyboardInterrupt:
        pass
    finally:
        results.close()


def _fetcher(spec: dict):
    return make_fetcher(
        spec["iterable"],
        spec["dataset"],
        spec["auto_collation"],
        spec["collate_fn"],
        spec["drop_last"],
    )


def _serve(spec, fetcher, init_error, index_queue, results, done_event, watchdog):
    # Returns when told to stop, when the main process dies (checked here and, while the
    # pipe is full, by `results`: see Note [Worker result pipes]), or when nobody reads.
    import queue  # in the worker process

    worker_id = _worker_info.id
    iteration_end = False
    while watchdog.is_alive():
        try:
            task = index_queue.get(timeout=STATUS_CHECK_INTERVAL)
        except queue.Empty:
            # The main process set the event but its "stop" may never come (an iterator
            # collected with its queues, say): the event alone ends an idle worker.
            if done_event.is_set():
                return
            continue
        if task is None:
            return
        if isinstance(task, ResumeIteration):
            iteration_end = False
            if spec["iterable"]:
                fetcher = _fetcher(spec)
            if not results.send(pickle.dumps((task, None))):
                return
            continue
        if done_event.is_set() or iteration_end:
            continue
        idx, index = task
        if init_error is not None:
            data, init_error = init_error, None
        else:
            data, iteration_end = _fetch(fetcher, index, spec["iterable"], worker_id)
        if not results.send(_pickled(idx, data, worker_id)):
            return


def _fetch(fetcher, index, iterable: bool, worker_id: int):
    try:
        return fetcher.fetch(index), False
    except StopIteration:
        if iterable:
            return IterableDatasetStopIteration(worker_id), True
        return ExceptionWrapper(where=f"in DataLoader worker process {worker_id}"), False
    except Exception:
        return ExceptionWrapper(where=f"in DataLoader worker process {worker_id}"), False


def _pickled(idx: int, data, worker_id: int) -> bytes:
    # A batch that cannot be pickled is reported, not lost (the main process would wait for
    # it forever).
    try:
        return pickle.dumps((idx, data), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        error = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        return pickle.dumps((idx, error))
