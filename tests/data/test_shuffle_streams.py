"""After the same seed, samplers, DataLoader shuffling, random_split and worker seeds are
PyTorch's, index for index."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad


def _both(torch, make, seed=5):
    out = []
    for lib in (dyngrad, torch):
        lib.manual_seed(seed)
        out.append(make(lib))
    return out


@pytest.mark.parametrize(
    "spec",
    [
        "RandomSampler(range(50))",
        "RandomSampler(range(7), num_samples=20)",
        "RandomSampler(range(10), replacement=True, num_samples=70)",
        "RandomSampler(range(10), generator=lib.Generator().manual_seed(3))",
        "SubsetRandomSampler([5, 9, 2, 11, 40])",
        "WeightedRandomSampler([0.1, 0.9, 0.4, 0.0, 2.0], 12)",
        "WeightedRandomSampler([0.1, 0.9, 0.4, 0.0, 2.0], 3, replacement=False)",
        "BatchSampler(lib.utils.data.RandomSampler(range(23)), 4, drop_last=False)",
    ],
)
def test_samplers_match_torch(spec, torch):
    def make(lib):
        sampler = eval(f"lib.utils.data.{spec}", {"lib": lib})
        return [list(sampler), list(sampler), lib.rand(2).tolist()]

    ours, theirs = _both(torch, make)
    assert ours == theirs


@pytest.mark.parametrize("generator", [False, True])
def test_dataloader_shuffles_as_torch(generator, torch):
    def make(lib):
        data = lib.utils.data.TensorDataset(lib.arange(40))
        g = lib.Generator().manual_seed(17) if generator else None
        loader = lib.utils.data.DataLoader(data, batch_size=6, shuffle=True, generator=g)
        epochs = [[b[0].tolist() for b in loader] for _ in range(3)]
        return epochs, lib.rand(2).tolist()

    ours, theirs = _both(torch, make)
    assert ours == theirs


def test_random_split_matches_torch(torch):
    def make(lib):
        split = lib.utils.data.random_split
        a = [list(s) for s in split(range(30), [10, 15, 5])]
        b = [list(s) for s in split(range(11), [0.5, 0.5])]
        c = [list(s) for s in split(range(9), [3, 6], generator=lib.Generator().manual_seed(1))]
        return a, b, c

    ours, theirs = _both(torch, make)
    assert ours == theirs


def test_workers_are_seeded_as_torch_seeds_them(torch):
    class Seeds(dyngrad.utils.data.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            info = dyngrad.utils.data.get_worker_info()
            return info.seed, float(np.random.random_sample())

    for lib in (dyngrad, torch):
        lib.manual_seed(21)
    loader = dyngrad.utils.data.DataLoader(Seeds(), num_workers=2, collate_fn=lambda b: b[0])
    ours = list(loader)
    base = torch.empty((), dtype=torch.int64).random_().item()
    _generate_state = torch.utils.data._utils.worker._generate_state
    expected = [
        (base + w, np.random.RandomState(_generate_state(base, w)).random_sample())
        for w in range(2)
    ]
    assert ours == expected
