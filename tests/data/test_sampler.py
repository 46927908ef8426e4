"""Samplers and datasets: orders, lengths, reproducibility and PyTorch's errors."""

from __future__ import annotations

import collections

import pytest

import dyngrad
from dyngrad.utils import data


def test_sequential_and_batch_samplers_match_torch(torch):
    for drop_last in (False, True):
        ours = list(data.BatchSampler(data.SequentialSampler(range(10)), 3, drop_last))
        theirs = list(torch.utils.data.BatchSampler(range(10), 3, drop_last))
        assert ours == theirs
        assert len(data.BatchSampler(range(10), 3, drop_last)) == len(theirs)


def test_random_sampler_is_a_permutation_and_reproducible():
    gen = dyngrad.Generator().manual_seed(5)
    first = list(data.RandomSampler(range(20), generator=gen))
    assert sorted(first) == list(range(20))
    again = list(data.RandomSampler(range(20), generator=dyngrad.Generator().manual_seed(5)))
    assert first == again
    dyngrad.manual_seed(3)
    a = list(data.RandomSampler(range(20)))
    dyngrad.manual_seed(3)
    assert list(data.RandomSampler(range(20))) == a


def test_random_sampler_num_samples_and_replacement():
    without = list(data.RandomSampler(range(4), num_samples=10))
    assert len(without) == 10
    assert collections.Counter(without[:8]) == {0: 2, 1: 2, 2: 2, 3: 2}
    with_replacement = data.RandomSampler(range(3), replacement=True, num_samples=70)
    drawn = list(with_replacement)
    assert len(drawn) == len(with_replacement) == 70 and set(drawn) == {0, 1, 2}


def test_subset_random_sampler_permutes_its_indices():
    assert sorted(data.SubsetRandomSampler([7, 3, 9])) == [3, 7, 9]


def test_weighted_random_sampler_follows_weights():
    drawn = list(data.WeightedRandomSampler([0.0, 1.0, 3.0], 4000))
    counts = collections.Counter(drawn)
    assert counts[0] == 0 and 0.7 < counts[2] / 4000 < 0.8
    no_repeat = list(data.WeightedRandomSampler([1.0, 0.0, 2.0], 3, replacement=False))
    assert sorted(no_repeat) == [0, 1, 2] and no_repeat[-1] == 1


@pytest.mark.parametrize(
    "make",
    [
        lambda d: d.RandomSampler(range(3), replacement=1),
        lambda d: d.RandomSampler(range(3), num_samples=0),
        lambda d: d.BatchSampler(range(3), 0, False),
        lambda d: d.BatchSampler(range(3), 2, 1),
        lambda d: d.WeightedRandomSampler([1.0], 0),
        lambda d: d.WeightedRandomSampler([[1.0]], 1),
        lambda d: list(d.WeightedRandomSampler([1.0, -1.0], 1)),
        lambda d: list(d.WeightedRandomSampler([0.0, 0.0], 1)),
        lambda d: list(d.WeightedRandomSampler([1.0, 1.0], 3, replacement=False)),
    ],
)
def test_sampler_errors_match_torch(torch, make):
    with pytest.raises(Exception) as theirs:
        make(torch.utils.data)
    with pytest.raises(theirs.type) as ours:
        make(data)
    assert str(ours.value) == str(theirs.value)


def test_tensor_dataset_and_subset_and_concat():
    ds = data.TensorDataset(dyngrad.arange(5.0), dyngrad.arange(5))
    x, y = ds[2]
    assert (x.item(), y.item(), len(ds)) == (2.0, 2, 5)
    sub = data.Subset(ds, [4, 0])
    assert [s[1].item() for s in (sub[0], sub[1])] == [4, 0]
    both = ds + sub
    assert len(both) == 7 and both[5][1].item() == 4 and both[-1][1].item() == 0
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        data.TensorDataset(dyngrad.ones(2), dyngrad.ones(3))
    with pytest.raises(ValueError, match="absolute value of index should not exceed"):
        both[-8]


def test_random_split_lengths_match_torch(torch):
    for lengths in ([3, 7], [0.3, 0.7], [0.5, 0.25, 0.25], [0.34, 0.33, 0.33]):
        ours = data.random_split(range(10), lengths)
        theirs = torch.utils.data.random_split(range(10), lengths)
        assert [len(s) for s in ours] == [len(s) for s in theirs]
        assert sorted(i for s in ours for i in s) == list(range(10))


def test_random_split_is_reproducible_with_a_generator():
    a = data.random_split(range(10), [5, 5], generator=dyngrad.Generator().manual_seed(1))
    b = data.random_split(range(10), [5, 5], generator=dyngrad.Generator().manual_seed(1))
    assert [list(s) for s in a] == [list(s) for s in b]


def test_random_split_errors_and_warnings_match_torch(torch):
    for lengths in ([3, 3], [0.5, 1.5, -1.0]):
        with pytest.raises(ValueError) as theirs:
            torch.utils.data.random_split(range(10), lengths)
        with pytest.raises(ValueError, match=theirs.value.args[0].replace("!", ".")):
            data.random_split(range(10), lengths)
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        data.random_split(range(2), [1.0, 0.0])


def test_iterable_dataset_chains():
    class Count(data.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

    assert list(Count(2) + Count(3)) == [0, 1, 0, 1, 2]
