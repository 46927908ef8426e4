"""DataLoader in the main process: batching, shuffling, samplers and PyTorch's option errors."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad.utils.data import (
    BatchSampler,
    DataLoader,
    IterableDataset,
    SequentialSampler,
    TensorDataset,
)


def _dataset(t):
    return t.utils.data.TensorDataset(t.arange(10.0).reshape(10, 1), t.arange(10))


def _batches(loader):
    return [[part.tolist() for part in batch] for batch in loader]


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"batch_size": 4},
        {"batch_size": 4, "drop_last": True},
        {"batch_size": 3, "sampler": [9, 1, 5, 3]},
        {"batch_sampler": [[0, 1], [7, 8, 9]]},
    ],
)
def test_batches_match_torch(torch, kwargs):
    ours = DataLoader(_dataset(dyngrad), **kwargs)
    theirs = torch.utils.data.DataLoader(_dataset(torch), **kwargs)
    assert _batches(ours) == _batches(theirs)
    assert len(ours) == len(theirs)


def test_batch_size_none_converts_single_samples(torch):
    samples = [np.ones(2, np.float32) * i for i in range(3)]
    ours = [b.tolist() for b in DataLoader(samples, batch_size=None)]
    theirs = [b.tolist() for b in torch.utils.data.DataLoader(samples, batch_size=None)]
    assert ours == theirs


def test_shuffle_is_reproducible_and_covers_everything():
    def order(**kwargs):
        return [
            y.tolist()
            for _, y in DataLoader(_dataset(dyngrad), batch_size=3, shuffle=True, **kwargs)
        ]

    dyngrad.manual_seed(0)
    first = order()
    dyngrad.manual_seed(0)
    assert order() == first
    assert sorted(sum(first, [])) == list(range(10))
    seeded = order(generator=dyngrad.Generator().manual_seed(4))
    assert order(generator=dyngrad.Generator().manual_seed(4)) == seeded


def test_each_epoch_reshuffles():
    loader = DataLoader(range(30), batch_size=30, shuffle=True)
    assert next(iter(loader)).tolist() != next(iter(loader)).tolist()


def test_custom_collate_fn_and_batch_sampler():
    loader = DataLoader(
        range(6),
        batch_sampler=BatchSampler(SequentialSampler(range(6)), 4, False),
        collate_fn=lambda batch: sum(batch),
    )
    assert list(loader) == [6, 9]


def test_iterable_dataset_batches_and_length():
    class Stream(IterableDataset):
        def __iter__(self):
            return iter(range(7))

        def __len__(self):
            return 7

    loader = DataLoader(Stream(), batch_size=3)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(loader) == 3
    assert len(DataLoader(Stream(), batch_size=3, drop_last=True)) == 2
    assert [b.tolist() for b in DataLoader(Stream(), batch_size=3, drop_last=True)] == [
        [0, 1, 2],
        [3, 4, 5],
    ]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_workers": -1},
        {"timeout": -1},
        {"prefetch_factor": 2},
        {"persistent_workers": True},
        {"shuffle": True, "sampler": [0, 1]},
        {"batch_sampler": [[0]], "batch_size": 2},
        {"batch_size": None, "drop_last": True},
        {"multiprocessing_context": "fork"},
        {"num_workers": 1, "prefetch_factor": -1},
    ],
)
def test_option_errors_match_torch(torch, kwargs):
    with pytest.raises(ValueError) as theirs:
        torch.utils.data.DataLoader(_dataset(torch), **kwargs)
    with pytest.raises(ValueError) as ours:
        DataLoader(_dataset(dyngrad), **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_iterable_dataset_option_errors_match_torch(torch):
    for kwargs in ({"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}):

        class Stream(torch.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(3))

        class Ours(IterableDataset):
            def __iter__(self):
                return iter(range(3))

        with pytest.raises(ValueError) as theirs:
            torch.utils.data.DataLoader(Stream(), **kwargs)
        with pytest.raises(ValueError) as ours:
            DataLoader(Ours(), **kwargs)
        assert str(ours.value) == str(theirs.value)


def test_attributes_are_frozen_after_init():
    loader = DataLoader(range(3))
    with pytest.raises(
        ValueError, match="batch_size attribute should not be set after DataLoader is initialized"
    ):
        loader.batch_size = 2


def test_pin_memory_warns_without_an_accelerator():
    with pytest.warns(
        UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"
    ):
        list(DataLoader(range(2), pin_memory=True))


def test_tensor_dataset_training_loop_runs(torch):
    # The seed's training skeleton shape: (x, y) batches of the right sizes every epoch.
    X, y = dyngrad.randn(128, 20), dyngrad.randn(128, 1)
    loader = DataLoader(TensorDataset(X, y), batch_size=16, shuffle=True)
    shapes = {(tuple(bx.shape), tuple(by.shape)) for bx, by in loader}
    assert shapes == {((16, 20), (16, 1))} and len(loader) == 8


def test_iterator_class_names_match_torch(torch):
    names = []
    for lib in (dyngrad, torch):
        loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.arange(4.0)), 2)
        names.append(type(iter(loader)).__name__)
        assert lib.utils.data.dataloader._SingleProcessDataLoaderIter is type(iter(loader))
    assert names[0] == names[1] == "_SingleProcessDataLoaderIter"
