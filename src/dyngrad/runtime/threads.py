"""Intra-op threads: a large elementwise kernel computed on slices of its arrays at once.

# Note [Intra-op threads]
# NumPy's ufuncs release the GIL while they loop, so a kernel made of whole-array NumPy calls
# runs in parallel on disjoint slices of its arrays, one thread a slice, as PyTorch runs its
# CPU kernels (at::parallel_for, its grain of 32768 elements). Only elementwise work is split
# this way (GELU, the optimizers' updates): every output element depends on the same input
# elements alone, so the result is bitwise the one of a single call. It pays only for kernels
# of many passes: waking a thread costs tens of microseconds here, more than a single pass
# such as relu's saves (relu on a conv layer's 400K activations got 2x slower split in two),
# and below a grain per thread the threads' start costs more than they save.
# `torch.set_num_threads(1)` (dyngrad's own) turns it off; the pool is rebuilt in a forked
# child (DataLoader workers), whose copy of it has no threads.
"""

from __future__ import annotations

import os
import threading

import numpy as np

from .blas_threads import set_blas_threads

__all__ = ["elementwise", "foreach", "get_num_threads", "set_num_threads"]

GRAIN = 1 << 16  # elements per thread below which one call is faster
_pool = None  # a ThreadPoolExecutor, made when a kernel first splits
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
    set_blas_threads(n)  # as PyTorch's bounds its BLAS: See Note [BLAS threads]


def _get_pool():
    global _pool
    with _lock:
        if _pool is None:
            # imported here: concurrent.futures (and the logging it loads) would add a tenth
            # to `import dyngrad`, for kernels large enough to split
            from concurrent.futures import ThreadPoolExecutor

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


def _slices(arrays):
    """The arrays' flat slices, one list per thread, or None when one call is better."""
    first = arrays[0]
    n = min(_threads, first.size // GRAIN)
    if (
        n < 2
        or type(first) is not np.ndarray
        or any(a.shape != first.shape or not a.flags.c_contiguous for a in arrays)
    ):
        return None
    flat = [a.reshape(-1) for a in arrays]
    bounds = [first.size * i // n for i in range(n + 1)]
    return [[f[lo:hi] for f in flat] for lo, hi in zip(bounds, bounds[1:])]


def _run(fn, parts) -> list:
    # the first slice on this thread, the others on the pool's
    pool = _get_pool()
    futures = [pool.submit(_quiet, fn, part) for part in parts[1:]]
    return [fn(*parts[0])] + [future.result() for future in futures]


def elementwise(fn, *arrays):
    """`fn(*arrays)` for an elementwise `fn` of same-shape C-contiguous NumPy arrays, split
    across threads when they are large (see Note [Intra-op threads]). `fn` itself must not
    split again: the pool's threads would wait on each other."""
    parts = _slices(arrays)
    if parts is None:
        return fn(*arrays)
    return np.concatenate(_run(fn, parts)).reshape(arrays[0].shape)


def foreach(fn, *arrays) -> None:
    """`fn(*arrays)` for an `fn` that updates same-shape C-contiguous arrays elementwise in
    place (an optimizer's step), split across threads when they are large."""
    parts = _slices(arrays)
    if parts is None:
        fn(*arrays)
    else:
        _run(fn, parts)
