"""`DataLoader`: batches from a dataset, in this process or in worker processes."""

from __future__ import annotations

import os
import sys
import warnings

from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .iterators import (  # noqa: F401 - PyTorch's names, for code that imports them from here
    SingleProcessDataLoaderIter,
    _BaseDataLoaderIter,
    _SingleProcessDataLoaderIter,
)
from .multiprocess import MultiProcessingDataLoaderIter, _MultiProcessingDataLoaderIter  # noqa: F401
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]


class _InfiniteConstantSampler(Sampler):
    """The sampler of an iterable dataset: None forever (the dataset decides what comes)."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Matches `torch.utils.data.DataLoader`.

    `num_workers > 0` starts real worker processes (forked on Linux). Each worker seeds
    dyngrad, `random` and NumPy with `base_seed + worker_id`, where `base_seed` is drawn from
    `generator` at every new iterator; workers run with grad disabled. A worker's exception
    is raised again here with the worker's traceback; a worker that dies (even halfway
    through sending a batch) raises an error within a fraction of a second, never a hang;
    workers exit when the main process dies, even while blocked on a full pipe. POSIX only
    for workers. `pin_memory` is accepted (there is no accelerator memory to pin on the CPU).
    """

    _initialized = False

    def __init__(
        self,
        dataset,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler=None,
        batch_sampler=None,
        num_workers: int = 0,
        collate_fn=None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        _check_workers(num_workers, timeout, prefetch_factor, persistent_workers)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = 2 if num_workers > 0 and prefetch_factor is None else prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.in_order = in_order
        self._iterable = isinstance(dataset, IterableDataset)
        batch_size, drop_last, sampler, batch_sampler = _batching(
            dataset,
            self._iterable,
            batch_size,
            shuffle,
            sampler,
            batch_sampler,
            drop_last,
            generator,
        )
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.multiprocessing_context = _context(multiprocessing_context, num_workers)
        self._iterator = None
        self._initialized = True
        self.check_worker_number_rationality()

    def __setattr__(self, name, value):
        if self._initialized and name in (
            "batch_size",
            "batch_sampler",
            "sampler",
            "drop_last",
            "dataset",
            "persistent_workers",
        ):
            raise ValueError(
                f"{name} attribute should not be set after {self.__class__.__name__} is initialized"
            )
        super().__setattr__(name, value)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def _get_iterator(self):
        if self.num_workers == 0:
            return SingleProcessDataLoaderIter(self)
        return MultiProcessingDataLoaderIter(self)

    def __len__(self) -> int:
        if self._iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                length = (
                    length // self.batch_size if self.drop_last else -(-length // self.batch_size)
                )
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self) -> None:
        """Warn, as PyTorch does, when asking for more workers than there are CPUs."""
        if not self.num_workers:
            return
        has_affinity = hasattr(os, "sched_getaffinity")
        cpus = len(os.sched_getaffinity(0)) if has_affinity else os.cpu_count()
        if cpus is None or self.num_workers > cpus:
            suggestion = (
                (
                    f"Our suggested max number of worker in current system is {cpus}"
                    f"{'' if has_affinity else ' (`cpuset` is not taken into account)'}, which is "
                    "smaller than what this DataLoader is going to create."
                )
                if cpus
                else (
                    "DataLoader is not able to compute a suggested max number of worker in "
                    "current system."
                )
            )
            warnings.warn(
                f"This DataLoader will create {self.num_workers} worker processes in total. "
                f"{suggestion} Please be aware that excessive worker creation might get "
                "DataLoader running slow or even freeze, lower the worker number to avoid "
                "potential slowness/freeze if necessary.",
                stacklevel=3,
            )


def _batching(dataset, iterable, batch_size, shuffle, sampler, batch_sampler, drop_last, generator):
    """PyTorch's rules for combining the batching options, and the samplers they imply."""
    if iterable:
        _check_iterable_options(shuffle, sampler, batch_sampler)
    elif shuffle not in {False, None} and sampler is not None:
        raise ValueError("sampler option is mutually exclusive with shuffle")
    if batch_sampler is not None:
        if batch_size != 1 or shuffle or sampler is not None or drop_last:
            raise ValueError(
                "batch_sampler option is mutually exclusive with batch_size, "
                "shuffle, sampler, and drop_last"
            )
        batch_size, drop_last = None, False
    elif batch_size is None and drop_last:
        raise ValueError(
            "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
        )
    if sampler is None:
        sampler = _default_sampler(dataset, iterable, shuffle, generator)
    if batch_size is not None and batch_sampler is None:
        batch_sampler = BatchSampler(sampler, batch_size, drop_last)
    return batch_size, drop_last, sampler, batch_sampler


def _check_workers(num_workers, timeout, prefetch_factor, persistent_workers) -> None:
    if num_workers < 0:
        raise ValueError(
            "num_workers option should be non-negative; use num_workers=0 to "
            "disable multiprocessing."
        )
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError(
            "prefetch_factor option could only be specified in multiprocessing."
            "let num_workers > 0 to enable multiprocessing, otherwise set "
            "prefetch_factor to None."
        )
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")


def _check_iterable_options(shuffle, sampler, batch_sampler) -> None:
    if shuffle not in {False, None}:
        raise ValueError(
            "DataLoader with IterableDataset: expected unspecified shuffle "
            f"option, but got shuffle={shuffle}"
        )
    if sampler is not None:
        raise ValueError(
            "DataLoader with IterableDataset: expected unspecified sampler "
            f"option, but got sampler={sampler}"
        )
    if batch_sampler is not None:
        raise ValueError(
            "DataLoader with IterableDataset: expected unspecified batch_sampler "
            f"option, but got batch_sampler={batch_sampler}"
        )


def _default_sampler(dataset, iterable: bool, shuffle, generator):
    if iterable:
        return _InfiniteConstantSampler()
    if shuffle:
        return RandomSampler(dataset, generator=generator)
    return SequentialSampler(dataset)


def _context(context, num_workers: int):
    # Fork starts workers in milliseconds where the platform has it; spawn elsewhere.
    if context is None and not (num_workers > 0 and sys.platform.startswith("linux")):
        return None
    # imported for worker processes only: multiprocessing (with socket, subprocess and
    # selectors) would add a tenth to `import dyngrad`
    import multiprocessing

    if context is None:
        return multiprocessing.get_context("fork")
    if num_workers == 0:
        raise ValueError(
            "multiprocessing_context can only be used with multi-process loading "
            f"(num_workers > 0), but got num_workers={num_workers}"
        )
    if isinstance(context, str):
        methods = multiprocessing.get_all_start_methods()
        if context not in methods:
            raise ValueError(
                "multiprocessing_context option should specify a valid start "
                f"method in {methods!r}, but got "
                f"multiprocessing_context={context!r}"
            )
        return multiprocessing.get_context(context)
    if not isinstance(context, multiprocessing.context.BaseContext):
        raise TypeError(
            "multiprocessing_context option should be a valid context object or a "
            "string specifying the start method, but got "
            f"multiprocessing_context={context}"
        )
    return context
