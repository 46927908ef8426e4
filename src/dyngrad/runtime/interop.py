"""The inter-op thread settings and the CPU's floating-point mode, as `torch.*` reads and sets
them: `get/set_num_interop_threads`, `init_num_threads`, `set_flush_denormal`.

dyngrad runs one op at a time on the caller's thread (there is no inter-op pool: independent
ops are not scheduled in parallel), so the inter-op count is recorded and answered, as
PyTorch answers it, without changing how work runs.
"""

from __future__ import annotations

import os

__all__ = [
    "get_num_interop_threads",
    "set_num_interop_threads",
    "init_num_threads",
    "set_flush_denormal",
]

_interop = {"threads": os.cpu_count() or 1, "set": False}


def get_num_interop_threads() -> int:
    """Matches `torch.get_num_interop_threads`: by default the number of CPU cores."""
    return _interop["threads"]


def set_num_interop_threads(n: int) -> None:
    """Matches `torch.set_num_interop_threads`: once per process, as in PyTorch."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise RuntimeError(f"set_num_interop_threads expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _interop["set"]:
        raise RuntimeError(
            "Error: cannot set number of interop threads after parallel work has started or "
            "set_num_interop_threads called"
        )
    _interop["threads"], _interop["set"] = n, True


def init_num_threads() -> None:
    """Matches `torch.init_num_threads`: PyTorch's per-thread OpenMP setup; nothing to do."""


def set_flush_denormal(mode: bool) -> bool:
    """Matches `torch.set_flush_denormal`'s answer on a CPU without the flush-to-zero mode:
    NumPy's kernels do not flush denormals, so turning it on fails (False) and turning it
    off succeeds (True). PyTorch on an x86 CPU answers True to both and flushes."""
    return not mode
