"""The BLAS library's thread count, which `torch.set_num_threads` sets too.

# Note [BLAS threads]
# PyTorch's `set_num_threads(n)` bounds its intra-op parallelism, BLAS included (MKL, OpenMP).
# dyngrad's products run in NumPy's BLAS (OpenBLAS in NumPy's wheels), which starts as many
# threads as the machine has cores and knows nothing of dyngrad's setting. Left so, a script
# that asks for one thread still gets two in every product, and on a busy machine an OpenBLAS
# thread that waits for a core stalls the product that needs it: a 16x128 by 128x512 weight
# gradient took 16-24 ms instead of ~50 us here while other processes ran. So `set_num_threads`
# also sets the BLAS library's count: through threadpoolctl when it is installed (the
# maintained way to reach any BLAS NumPy may use), else through the OpenBLAS that NumPy's own
# wheels bundle (its `set_num_threads` entry point, found by name), else not at all (NumPy
# built against another BLAS: `blas_threads_settable()` says so).
"""

from __future__ import annotations

import ctypes
import glob
import os

import numpy as np

__all__ = ["set_blas_threads", "get_blas_threads", "blas_threads_settable"]

# NumPy's wheels bundle scipy-openblas, whose symbols carry a prefix and, for its 64-bit
# integer build, a suffix; a plain OpenBLAS has neither
_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)
_GETTERS = tuple(name.replace("set_", "get_") for name in _SETTERS)
_setter = None
_getter = None
_looked = False


def _find():
    """(setter, getter) of the BLAS thread count, either None where there is none."""
    try:  # optional: see Note [BLAS threads]
        import threadpoolctl
    except ImportError:
        threadpoolctl = None
    if threadpoolctl is not None:
        return (
            lambda n: threadpoolctl.threadpool_limits(n, user_api="blas"),
            lambda: min(
                (
                    info["num_threads"]
                    for info in threadpoolctl.threadpool_info()
                    if info.get("user_api") == "blas"
                ),
                default=None,
            ),
        )
    folder = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    for path in sorted(glob.glob(os.path.join(folder, "*openblas*"))):
        try:
            library = ctypes.CDLL(path)  # already loaded by NumPy: the same library
        except OSError:
            continue
        for set_name, get_name in zip(_SETTERS, _GETTERS):
            setter = getattr(library, set_name, None)
            if setter is not None:
                setter.argtypes = [ctypes.c_int]
                setter.restype = None
                getter = getattr(library, get_name, None)
                if getter is not None:
                    getter.restype = ctypes.c_int
                return setter, getter
    return None, None


def _get_setter():
    global _setter, _getter, _looked
    if not _looked:
        _setter, _getter = _find()
        _looked = True
    return _setter


def blas_threads_settable() -> bool:
    """Whether dyngrad can set the thread count of the BLAS NumPy uses."""
    return _get_setter() is not None


def set_blas_threads(n: int) -> bool:
    """Ask NumPy's BLAS for `n` threads; False when there is no way to (Note [BLAS threads])."""
    setter = _get_setter()
    if setter is None:
        return False
    setter(n)
    return True


def get_blas_threads() -> int | None:
    """The thread count NumPy's BLAS uses now, or None when dyngrad cannot tell."""
    _get_setter()
    return None if _getter is None else _getter()
