"""Intra-op threads: a large elementwise kernel computed on slices of its arrays at once.

# Note [Intra-op threads]
# NumPy's ufuncs release the GIL while they loop, so a kernel made of whole-array NumPy calls
# runs in parallel on disjoint slices of its arrays, one thread a slice, as PyTorch runs its
# CPU kernels (at::parallel_for, its grain of 32768 elements). Only elementwise work is split
# this way (GELU, the optimizers' updates): every output element depends on the same input
# elements alone, so the result is bitwise the one of a single call. Below a grain per thread
# the threads' start costs more than they save. `torch.set_num_threads(1)` (dyngrad's own)
# turns it off; the pool is rebuilt in a forked child (DataLoader workers), whose copy of it
# has no threads.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["elementwise", "foreach", "get_num_threads", "set_num_threads"]

GRAIN = 1 << 16  # elements per thread below which one call is faster
_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()
_threads = min(os.cpu_count() or 1, 8)


def get_num_threads() -> int:
    """Matches `torch.get_num_threads`: the threads an elementwise kernel may use."""
    return _threads


def set_num_threads(n: int) -> None:
    """Matches `torch.set_num_threads`."""
    global _threads, _pool
    if not isinstance(n, int):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(n).__name__}")
    if n < 1:
        raise RuntimeError("set_num_threads expects a positive integer")
    with _lock:
        _threads = n
        if _pool is not None:
            _pool.shutdown(wait=False)
            _pool = None


def _get_pool() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(_threads - 1, thread_name_prefix="dyngrad-intraop")
        return _pool


def _forget_pool() -> None:  # in a forked child the pool's threads do not exist
    global _pool
    _pool = None


os.register_at_fork(after_in_child=_forget_pool)


def _quiet(fn, args):
    # floating-point warning state is per thread: silence it here too, as the caller's is
    with np.errstate(all="ignore"):
        return fn(*args)


def elementwise(fn, *arrays):
    """`fn(*arrays)` for an elementwise `fn` of same-shape C-contiguous NumPy arrays, split
    across threads when they are large (see Note [Intra-op threads])."""
    first = arrays[0]
    n = min(_threads, first.size // GRAIN)
    if n < 2 or type(first) is not np.ndarray or any(
        a.shape != first.shape or not a.flags.c_contiguous for a in arrays
    ):
        return fn(*arrays)
    flat = [a.reshape(-1) for a in arrays]
    bounds = [first.size * i // n for i in range(n + 1)]
    pool = _get_pool()
    futures = [pool.submit(_quiet, fn, [f[lo:hi] for f in flat])
               for lo, hi in zip(bounds[1:-1], bounds[2:])]
    head = fn(*[f[: bounds[1]] for f in flat])
    out = np.empty(first.size, dtype=head.dtype)
    out[: bounds[1]] = head
    for future, lo, hi in zip(futures, bounds[1:-1], bounds[2:]):
        out[lo:hi] = future.result()
    return out.reshape(first.shape)


def foreach(fn, *arrays) -> None:
    """`fn(*arrays)` for an `fn` that updates same-shape C-contiguous arrays elementwise in
    place (an optimizer's step), split across threads when they are large."""
    first = arrays[0]
    n = min(_threads, first.size // GRAIN)
    if n < 2 or type(first) is not np.ndarray or any(
        a.shape != first.shape or not a.flags.c_contiguous for a in arrays
    ):
        fn(*arrays)
        return
    flat = [a.reshape(-1) for a in arrays]
    bounds = [first.size * i // n for i in range(n + 1)]
    pool = _get_pool()
    futures = [pool.submit(_quiet, fn, [f[lo:hi] for f in flat])
               for lo, hi in zip(bounds[1:-1], bounds[2:])]
    fn(*[f[: bounds[1]] for f in flat])
    for future in futures:
        future.result()
