"""`DistributedSampler`: each rank's share of a dataset, in torch's order for a seed and epoch."""

from __future__ import annotations

import math

from ...ops.creation.random import randperm
from ...runtime.random import Generator
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class above:
    """How to reach dyngrad.distributed (a function that returns the package, loading it on
    first use), handed in by dyngrad (See Note [Calls up the layers] and Note [Parts loaded
    on first use])."""

    distributed = None


class DistributedSampler(Sampler):
    """Matches `torch.utils.data.distributed.DistributedSampler`, index for index.

    Rank `rank` of `num_replicas` gets every `num_replicas`-th index of the (shuffled with
    `seed + epoch`) dataset, padded by repeating indices (or cut with `drop_last`) so that
    every rank gets `len(self)` samples. Call `set_epoch(epoch)` before each epoch: without
    it every epoch visits the samples in the same order.
    """

    def __init__(
        self,
        dataset,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        dist = above.distributed()
        if num_replicas is None:
            if dist is None or not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = dist.get_world_size()
        if rank is None:
            if dist is None or not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            # the largest share every rank can have without repeating an index
            self.num_samples = math.ceil(
                (len(self.dataset) - self.num_replicas) / self.num_replicas
            )
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:  # PyTorch's: a generator seeded with seed + epoch
            generator = Generator().manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=generator).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[: self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(
                f"Number of indices ({len(indices)}) does not match total_size ({self.total_size})"
            )
        indices = indices[self.rank : self.total_size : self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(
                f"Number of subsampled indices ({len(indices)}) does not match num_samples "
                f"({self.num_samples})"
            )
        return iter(indices)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Matches `DistributedSampler.set_epoch`: the next iteration shuffles with
        `seed + epoch`."""
        self.epoch = epoch
