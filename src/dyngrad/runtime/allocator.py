"""Tune the C allocator so NumPy's large temporaries are reused instead of mapped anew.

# Note [Allocator]
# Every NumPy temporary comes from malloc. glibc serves blocks above its mmap threshold
# (128 KiB to start with) by mmap and gives them back by munmap, so a training step that makes
# the same large temporaries again and again pays page faults and unmapping for each one
# (in the mini-GPT benchmark, a third of the step). PyTorch avoids this with its caching
# allocator. Raising glibc's mmap and trim thresholds keeps freed blocks in the heap for the
# next step; peak memory was unchanged in the benchmarks. The setting is process-wide, so it
# can be refused: DYNGRAD_MALLOC_TUNING=0 leaves malloc as it is.
"""

from __future__ import annotations

import ctypes
import os
import sys

__all__ = ["tune_malloc"]

_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameter numbers (malloc.h)
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 64 << 20
TRIM_THRESHOLD = 128 << 20


def tune_malloc() -> bool:
    """Raise glibc's mmap/trim thresholds (see Note [Allocator]); True if it was done."""
    if os.environ.get("DYNGRAD_MALLOC_TUNING", "1") == "0" or not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc (musl, ...): nothing to tune
        return False
    return bool(
        mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
