"""DataLoader iterators: what they share, and the one that loads in this process (the worker
processes' one is in multiprocess.py)."""

from __future__ import annotations

import warnings

from ...autograd import profiler
from .sampler import fresh_seed
from .worker import make_fetcher

__all__ = ["BaseDataLoaderIter", "SingleProcessDataLoaderIter"]


class BaseDataLoaderIter:
    """What every DataLoader iterator shares: the index stream and the worker base seed."""

    def __init__(self, loader) -> None:
        self._dataset = loader.dataset
        self._iterable = loader._iterable
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._persistent_workers = loader.persistent_workers
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = fresh_seed(loader.generator)
        self._num_yielded = 0
        if loader.pin_memory:
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, "
                "then device pinned memory won't be used.",
                stacklevel=3,
            )

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter: bool = False) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0

    def _next_index(self):
        return next(self._sampler_iter)

    def __next__(self):
        if profiler.collector is not None:  # PyTorch's range: See Note [Profiler ranges]
            with profiler.record_function(f"enumerate(DataLoader)#{type(self).__name__}.__next__"):
                return self._next_batch()
        return self._next_batch()

    def _next_batch(self):
        data = self._next_data()
        self._num_yielded += 1
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError(f"{self.__class__.__name__} cannot be pickled")


class SingleProcessDataLoaderIter(BaseDataLoaderIter):
    def __init__(self, loader) -> None:
        super().__init__(loader)
        self._fetcher = make_fetcher(
            self._iterable, self._dataset, self._auto_collation, self._collate_fn, self._drop_last
        )

    def _next_data(self):
        return self._fetcher.fetch(self._next_index())


# PyTorch's class names (private there: `type(iter(loader)).__name__` is
# "_SingleProcessDataLoaderIter")
BaseDataLoaderIter.__name__ = BaseDataLoaderIter.__qualname__ = "_BaseDataLoaderIter"
SingleProcessDataLoaderIter.__name__ = "_SingleProcessDataLoaderIter"
SingleProcessDataLoaderIter.__qualname__ = "_SingleProcessDataLoaderIter"
_BaseDataLoaderIter = BaseDataLoaderIter
_SingleProcessDataLoaderIter = SingleProcessDataLoaderIter
