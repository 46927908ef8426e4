"""DataLoader worker processes: order, seeding, errors, dead workers, timeouts, grad mode."""

from __future__ import annotations

import ctypes
import faulthandler
import os
import random
import re
import signal
import time

import numpy as np
import pytest

import dyngrad
from dyngrad.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="worker tests fork")


class Squares(Dataset):
    def __init__(self, n=12, fail_at=None, exc=ValueError):
        self.n, self.fail_at, self.exc = n, fail_at, exc

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.fail_at:
            raise self.exc(f"bad sample {i}")
        return dyngrad.tensor([float(i * i)]), i


def _flat(loader):
    return [(x.flatten().tolist(), y.tolist()) for x, y in loader]


def test_workers_give_the_same_batches_in_order():
    kwargs = {"batch_size": 3, "shuffle": True}
    single = _flat(DataLoader(Squares(), generator=dyngrad.Generator().manual_seed(1), **kwargs))
    multi = _flat(
        DataLoader(Squares(), num_workers=2, generator=dyngrad.Generator().manual_seed(1), **kwargs)
    )
    assert multi == single
    assert sorted(sum((y for _, y in multi), [])) == list(range(12))


def test_worker_exception_is_reraised_with_its_traceback():
    loader = DataLoader(Squares(fail_at=4), batch_size=2, num_workers=2)
    with pytest.raises(ValueError) as info:
        list(loader)
    text = str(info.value)
    assert text.startswith(
        "Caught ValueError in DataLoader worker process 0.\n"
        "Original Traceback (most recent call last):\n"
    )
    assert "in __getitem__" in text and "ValueError: bad sample 4" in text


def test_worker_key_error_prints_its_message_unquoted():
    with pytest.raises(KeyError) as info:
        list(DataLoader(Squares(fail_at=1, exc=KeyError), num_workers=1))
    assert str(info.value).startswith("Caught KeyError in DataLoader worker process 0.\n")


def test_loader_goes_on_after_a_worker_error():
    it = iter(DataLoader(Squares(n=4, fail_at=1), num_workers=2))
    assert next(it)[1].tolist() == [0]
    with pytest.raises(ValueError):
        next(it)
    assert [y.tolist() for _, y in it] == [[2], [3]]


class Dies(Dataset):
    def __init__(self, how):
        self.how = how

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 3:
            if self.how == "exit":
                os._exit(3)
            if self.how == "segfault":
                faulthandler.disable()  # pytest's would print a traceback first
                ctypes.string_at(0)
            os.kill(os.getpid(), signal.SIGKILL)
        return i


@pytest.mark.parametrize(
    "how, cause",
    [("exit", "exit code 3"), ("kill", "killed by signal SIGKILL"), ("segfault", "SIGSEGV")],
)
def test_dead_worker_raises_instead_of_hanging(how, cause):
    start = time.monotonic()
    with pytest.raises(RuntimeError) as info:
        list(DataLoader(Dies(how), num_workers=2))
    assert time.monotonic() - start < 5
    assert re.match(r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly\n\(", str(info.value))
    assert cause in str(info.value)


def test_timeout_raises():
    class Slow(Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            time.sleep(1)
            return i

    start = time.monotonic()
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.3 seconds"):
        list(DataLoader(Slow(), num_workers=1, timeout=0.3))
    assert time.monotonic() - start < 2


W = dyngrad.ones(2, requires_grad=True)


class Augmented(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        # An augmentation that touches a tensor requiring grad: it must build no graph.
        return W * i, dyngrad.is_grad_enabled()


def test_workers_run_with_grad_disabled():
    for x, enabled in DataLoader(Augmented(), batch_size=2, num_workers=2):
        assert enabled.tolist() == [False, False]
        assert x.grad_fn is None and not x.requires_grad
    assert dyngrad.is_grad_enabled()


class Threads(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return dyngrad.get_num_threads()


def test_workers_run_on_one_thread_as_torchs():
    assert DataLoader(Threads(), batch_size=2, num_workers=1).__iter__().__next__().tolist() == [
        1,
        1,
    ]


class Randomness(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return (
            dyngrad.rand(1).item(),
            float(np.random.rand()),
            random.random(),
            info.id,
            info.seed,
            info.num_workers,
        )


def _draws(**kwargs):
    loader = DataLoader(Randomness(), batch_size=2, num_workers=2, **kwargs)
    return [tuple(t.tolist() for t in batch) for batch in loader]


def test_worker_seeding_is_deterministic_and_differs_per_worker():
    a = _draws(generator=dyngrad.Generator().manual_seed(7))
    assert a == _draws(generator=dyngrad.Generator().manual_seed(7))
    assert a != _draws(generator=dyngrad.Generator().manual_seed(8))
    dyngrad.manual_seed(2)
    b = _draws()
    dyngrad.manual_seed(2)
    assert _draws() == b
    worker0, worker1 = a[0], a[1]
    assert worker0[3] == [0, 0] and worker1[3] == [1, 1]
    assert worker1[4][0] == worker0[4][0] + 1  # seed = base_seed + worker_id
    assert all(worker0[k] != worker1[k] for k in range(3))
    assert worker0[5] == [2, 2]


def test_get_worker_info_is_none_in_the_main_process():
    assert get_worker_info() is None


def _record_init(worker_id):
    np.random.seed(100 + worker_id)


def test_worker_init_fn_runs_in_each_worker():
    loader = DataLoader(Randomness(), batch_size=1, num_workers=2, worker_init_fn=_record_init)
    first = [batch[1].item() for batch in loader][:2]
    np.random.seed(100)
    expected0 = np.random.rand()
    np.random.seed(101)
    assert first == [expected0, np.random.rand()]


def test_worker_init_fn_error_is_reported():
    def broken(worker_id):
        raise RuntimeError("no GPU here")

    with pytest.raises(RuntimeError, match="Caught RuntimeError in DataLoader worker process"):
        list(DataLoader(Squares(), num_workers=1, worker_init_fn=broken))


class Sharded(IterableDataset):
    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, 10, step))


def test_iterable_dataset_shards_across_workers():
    items = sorted(
        sum((b.tolist() for b in DataLoader(Sharded(), batch_size=2, num_workers=2)), [])
    )
    assert items == list(range(10))


def test_unpicklable_batch_is_reported_not_lost():
    with pytest.raises(Exception, match="in DataLoader worker process 0"):
        list(DataLoader(range(2), num_workers=1, collate_fn=lambda b: lambda: b))


def test_persistent_workers_survive_epochs_and_restart_cleanly():
    loader = DataLoader(
        Squares(n=10), batch_size=2, num_workers=2, persistent_workers=True, prefetch_factor=3
    )
    it = iter(loader)
    pids = [w.pid for w in it._workers]
    next(it)  # leave the first epoch half-read
    assert [y.tolist() for _, y in loader] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]
    second = iter(loader)
    assert second is it and [w.pid for w in second._workers] == pids
    assert all(w.is_alive() for w in second._workers)
    assert len(list(second)) == 5
    persistent_iterable = DataLoader(
        Sharded(), batch_size=5, num_workers=2, persistent_workers=True
    )
    for _ in range(2):
        assert sorted(sum((b.tolist() for b in persistent_iterable), [])) == list(range(10))
    it._shutdown_workers()
    persistent_iterable._iterator._shutdown_workers()


def test_workers_exit_when_the_epoch_ends():
    it = iter(DataLoader(Squares(n=4), num_workers=2))
    workers = list(it._workers)
    assert len(list(it)) == 4
    assert not any(w.is_alive() for w in workers)
