"""`torch.autograd.profiler`: `record_function`, the named ranges the library marks, and the
legacy profiler (which `dyngrad.profiler` hands down when it loads).

# Note [Profiler ranges]
# A profile records ops (Note [Op observer]), backward nodes (Note [Engine observers]) and
# named ranges: `record_function` blocks, and the ranges PyTorch's own Python code marks
# (`Optimizer.step#Adam.step`, `Optimizer.zero_grad#Adam.zero_grad`,
# `enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__`). While a profile records,
# `dyngrad.profiler` sets `collector` to its recorder, whose `open(name)` starts a range and
# returns what `close(...)` ends; while None, a range costs one global read. The library marks
# its ranges only when `collector` is set, so an unprofiled step runs no range code at all.
"""

from __future__ import annotations

import functools

__all__ = ["record_function", "collector"]

collector = None  # the running profile's recorder: See Note [Profiler ranges]


class record_function:  # noqa: N801 - PyTorch's name
    """Matches `torch.autograd.profiler.record_function`: a context manager and decorator
    whose block shows as an event named `name` in a running profile (nothing otherwise).

    >>> with record_function("forward"):
    ...     y = x * 2
    """

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self._open: list = []  # one per enter, so a decorated function may recurse

    def __enter__(self) -> record_function:
        recorder = collector
        self._open.append(None if recorder is None else (recorder, recorder.open(self.name)))
        return self

    def __exit__(self, *exc) -> bool:
        opened = self._open.pop() if self._open else None
        if opened is not None:
            opened[0].close(opened[1])
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def ranged(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return ranged


class above:
    """`dyngrad.profiler`, handed down by the package when it loads (See Note [Calls up the
    layers]); the legacy profiler's names below come from it on first use."""

    profiler = None  # () -> the module dyngrad.profiler, loading it


# torch.autograd.profiler's names that live with the profiler itself (the tools layer)
_FROM_PROFILER = {
    "profile",
    "emit_nvtx",
    "emit_itt",
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "kineto_available",
}


def __getattr__(name: str):
    if name in _FROM_PROFILER:
        value = getattr(above.profiler().legacy, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'dyngrad.autograd.profiler' has no attribute '{name}'")
