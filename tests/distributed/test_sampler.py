"""DistributedSampler: torch's index lists for the same seed, epoch, rank and options."""

from __future__ import annotations

import itertools

import pytest

import dyngrad
from dyngrad.utils.data import DataLoader, DistributedSampler, TensorDataset


def test_shares_as_torch_gives_them_without_torch():
    assert list(DistributedSampler(range(10), 3, 1, seed=0)) == [1, 3, 8, 4]
    sampler = DistributedSampler(range(10), 3, 2, seed=5, drop_last=True)
    sampler.set_epoch(3)
    assert list(sampler) == [0, 6, 8]
    assert list(DistributedSampler(range(7), 4, 3, shuffle=False)) == [3, 0]  # padded
    assert list(DistributedSampler(range(2), 5, 4, shuffle=False)) == [0]  # padded twice over


GRID = list(
    itertools.product(
        [1, 7, 10, 33],  # dataset length
        [1, 2, 3, 4],  # replicas
        [True, False],  # shuffle
        [False, True],  # drop_last
        [(0, 0), (7, 2)],  # seed, epoch
    )
)


@pytest.mark.parametrize("n, replicas, shuffle, drop_last, seed_epoch", GRID)
def test_every_rank_gets_torchs_indices(n, replicas, shuffle, drop_last, seed_epoch, torch):
    seed, epoch = seed_epoch
    for rank in range(replicas):
        options = dict(num_replicas=replicas, rank=rank, shuffle=shuffle, seed=seed)
        ours = DistributedSampler(range(n), drop_last=drop_last, **options)
        theirs = torch.utils.data.distributed.DistributedSampler(
            range(n), drop_last=drop_last, **options
        )
        ours.set_epoch(epoch)
        theirs.set_epoch(epoch)
        assert list(ours) == list(theirs)
        assert (len(ours), ours.total_size) == (len(theirs), theirs.total_size)


def test_randperm_is_torchs_for_large_seeds_and_lengths(torch):
    for n, seed in [(0, 0), (1, 3), (1000, 2**33 + 5), (5000, 12345678901)]:
        ours = dyngrad.randperm(n, generator=dyngrad.Generator().manual_seed(seed))
        theirs = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
        assert ours.tolist() == theirs.tolist()


def test_invalid_rank_and_missing_process_group_raise_as_torch(torch):
    for lib in (dyngrad, torch):
        with pytest.raises(
            ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"
        ):
            lib.utils.data.distributed.DistributedSampler(range(4), num_replicas=3, rank=3)
    if dyngrad.distributed.is_available():
        missing = (ValueError, "Default process group has not been initialized")
    else:
        missing = (RuntimeError, "Requires distributed package to be available")
    with pytest.raises(missing[0], match=missing[1]):
        DistributedSampler(range(4))


def test_epochs_reshuffle_only_after_set_epoch():
    sampler = DistributedSampler(range(20), num_replicas=2, rank=0)
    first, again = list(sampler), list(sampler)
    sampler.set_epoch(1)
    assert first == again and list(sampler) != first
    assert sorted(first + list(DistributedSampler(range(20), 2, 1))) == list(range(20))


def test_a_dataloader_takes_it_as_its_sampler():
    data = TensorDataset(dyngrad.arange(10.0))
    loader = DataLoader(data, batch_size=2, sampler=DistributedSampler(data, 2, 1, shuffle=False))
    assert [batch[0].tolist() for batch in loader] == [[1.0, 3.0], [5.0, 7.0], [9.0]]
    assert dyngrad.utils.data.DistributedSampler is DistributedSampler
