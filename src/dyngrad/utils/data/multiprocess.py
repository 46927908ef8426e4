"""The DataLoader iterator over worker processes: task bookkeeping, order, and failures."""

from __future__ import annotations

import collections
import itertools
import os
import pickle
import time

from .iterators import BaseDataLoaderIter
from .result_pipe import STATUS_CHECK_INTERVAL, ResultReader
from .worker import ExceptionWrapper, IterableDatasetStopIteration, ResumeIteration, worker_loop

__all__ = ["MultiProcessingDataLoaderIter"]


# Note [DataLoader workers]
# Each worker has its own index queue and its own result pipe (see Note [Worker result
# pipes]). The main process keeps `prefetch_factor * num_workers` tasks in flight, hands them
# out round-robin, and yields the results in task order, holding early arrivals in
# `_task_info`. It waits on the result pipes and the workers' sentinels together, in short
# polls: when nothing came, it checks that every worker it waits on is alive (a dead one
# raises "exited unexpectedly") and whether the user's `timeout` passed. Workers likewise
# poll their index queue, and their full result pipe, and exit when the main process is gone.


class MultiProcessingDataLoaderIter(BaseDataLoaderIter):
    def __init__(self, loader) -> None:
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._shutdown = True  # until there are workers to stop
        self._owner_pid = os.getpid()
        import multiprocessing  # not at import time: See `_context` in dataloader.py

        ctx = loader.multiprocessing_context or multiprocessing
        self._workers_done_event = ctx.Event()
        spec = {
            "iterable": self._iterable,
            "dataset": self._dataset,
            "auto_collation": self._auto_collation,
            "collate_fn": self._collate_fn,
            "drop_last": self._drop_last,
            "worker_init_fn": loader.worker_init_fn,
            "num_workers": self._num_workers,
            "main_pid": self._owner_pid,
            "start_method": ctx.get_start_method(),
        }
        self._index_queues, self._workers, self._results = [], [], []
        self._arrived: collections.deque = collections.deque()
        self._shutdown = False  # from here on, workers started are stopped by __del__
        for worker_id in range(self._num_workers):
            self._start_worker(ctx, spec, worker_id)
        self._reset(loader, first_iter=True)

    def _start_worker(self, ctx, spec: dict, worker_id: int) -> None:
        index_queue = ctx.Queue()
        index_queue.cancel_join_thread()
        reader, writer = ctx.Pipe(duplex=False)
        args = (spec, index_queue, writer, self._workers_done_event, self._base_seed, worker_id)
        worker = ctx.Process(target=worker_loop, daemon=True, args=args)
        worker.start()
        writer.close()  # the worker's alone: see Note [Worker result pipes]
        self._index_queues.append(index_queue)
        self._workers.append(worker)
        self._results.append(ResultReader(reader))

    def _reset(self, loader, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info: dict[int, tuple] = {}
        self._workers_status = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:  # persistent workers: drop what is left of the last epoch
            for index_queue in self._index_queues:
                index_queue.put(ResumeIteration())
            waiting = self._num_workers
            while waiting > 0:
                idx, _ = self._get_data()
                if isinstance(idx, ResumeIteration):
                    waiting -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self) -> None:
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._worker_cycle)
            if self._workers_status[worker_id]:
                break
        else:
            return  # every worker is done
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._send_idx += 1

    def _next_data(self):
        while True:
            if not self._advance_to_pending():
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            info = self._task_info[self._rcvd_idx]
            if len(info) == 2:  # it came early and waited here
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process_data(info[1])
            idx, data = self._get_data()
            if isinstance(data, IterableDatasetStopIteration):
                self._retire(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                self._task_info[idx] += (data,)
                continue
            del self._task_info[idx]
            self._rcvd_idx += 1
            return self._process_data(data)

    def _advance_to_pending(self) -> bool:
        # Skip tasks given to workers whose iterable dataset ran out: no answer will come.
        while self._rcvd_idx < self._send_idx:
            info = self._task_info.get(self._rcvd_idx)
            if info is not None and (len(info) == 2 or self._workers_status[info[0]]):
                return True
            self._task_info.pop(self._rcvd_idx, None)
            self._rcvd_idx += 1
        return False

    def _retire(self, worker_id: int) -> None:
        self._workers_status[worker_id] = False
        if not self._persistent_workers:
            self._index_queues[worker_id].put(None)

    def _process_data(self, data):
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _get_data(self):
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while not self._arrived:
            self._receive()
            if self._arrived:
                break
            self._check_workers_alive()
            if deadline is not None and time.monotonic() > deadline:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        return pickle.loads(self._arrived.popleft())

    def _receive(self) -> None:
        # A worker's death wakes this wait through its sentinel, its data through its pipe.
        readers = [r for r in self._results if not r.closed]
        sentinels = [w.sentinel for w, up in zip(self._workers, self._workers_status) if up]
        from multiprocessing.connection import wait  # loaded with the workers already

        for ready in wait(readers + sentinels, timeout=STATUS_CHECK_INTERVAL):
            if isinstance(ready, ResultReader):
                self._arrived.extend(ready.read_messages())

    def _check_workers_alive(self) -> None:
        failed = [
            w for w, up in zip(self._workers, self._workers_status) if up and not w.is_alive()
        ]
        if failed:
            pids = ", ".join(str(w.pid) for w in failed)
            codes = ", ".join(_describe_exit(w.exitcode) for w in failed)
            self._shutdown_workers()
            raise RuntimeError(
                f"DataLoader worker (pid(s) {pids}) exited unexpectedly\n"
                f"({codes}; a worker killed by the OS for lack of memory shows "
                "as SIGKILL)"
            )

    def _shutdown_workers(self) -> None:
        # A forked child holds a copy of this iterator: only the parent may stop the workers.
        if getattr(self, "_shutdown", True) or os.getpid() != self._owner_pid:
            return
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for index_queue in self._index_queues:
                index_queue.put(None)
            for reader in self._results:  # a worker writing into a full pipe stops now
                reader.close()
            for worker in self._workers:
                worker.join(timeout=STATUS_CHECK_INTERVAL * 5)
            for index_queue in self._index_queues:
                index_queue.cancel_join_thread()
                index_queue.close()
        finally:
            for worker in self._workers:
                if worker.is_alive():
                    worker.terminate()

    def __del__(self):
        self._shutdown_workers()


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            import signal  # an error path only

            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


MultiProcessingDataLoaderIter.__name__ = "_MultiProcessingDataLoaderIter"
MultiProcessingDataLoaderIter.__qualname__ = "_MultiProcessingDataLoaderIter"
_MultiProcessingDataLoaderIter = MultiProcessingDataLoaderIter
