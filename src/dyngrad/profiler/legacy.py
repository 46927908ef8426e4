"""`torch.autograd.profiler`'s profile (the one `torch.profiler.profile` drives), emit_nvtx
and emit_itt; `record_function` is in dyngrad.autograd.profiler, below the library."""

from __future__ import annotations

from .events import EventList, FunctionEvent, FunctionEventAvg
from .recorder import Recorder
from .trace import now_epoch_us, write_trace

__all__ = [
    "profile",
    "emit_nvtx",
    "emit_itt",
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "kineto_available",
]

_running: list = []  # the recording profile, if any: one at a time, as PyTorch's


def kineto_available() -> bool:
    """Matches `torch.autograd.profiler.kineto_available`: dyngrad's profiler is its own."""
    return False


class profile:  # noqa: N801 - PyTorch's name
    """Matches `torch.autograd.profiler.profile`: records the ops, backward nodes and ranges
    run inside it (CPU wall time; see docs/profiler.md for what differs from PyTorch).

    >>> with torch.autograd.profiler.profile() as prof:
    ...     y = (x * 2).sum()
    >>> print(prof.key_averages().table(sort_by="self_cpu_time_total"))
    """

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device=None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = False,
        use_cpu: bool = True,
        experimental_config=None,
        acc_events: bool = False,
        custom_trace_id_callback=None,
    ) -> None:
        self.enabled = enabled
        self.use_cpu = use_cpu
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.use_device = use_device
        self.entered = False
        self._recorder = None
        self._events: list = []
        self._function_events = None
        self._origin_epoch_us = 0.0

    # ---- the steps torch.profiler.profile drives -----------------------------------------
    def _prepare_trace(self) -> None:
        self.entered = True
        if self._recorder is None or not self.acc_events:
            self._events = []
        self._recorder = Recorder(self.record_shapes, self.profile_memory, self.with_stack)

    def _start_trace(self) -> None:
        if not (self.enabled and self.use_cpu):
            return
        if _running:
            raise RuntimeError(
                "Profiler is already enabled on this thread (dyngrad records one profile at "
                "a time: end the running one first)"
            )
        _running.append(self)
        self._origin_epoch_us = now_epoch_us()
        self._recorder.start()

    def _stop_trace(self) -> None:
        if self in _running:
            _running.remove(self)
            self._recorder.stop()
            self._events.extend(self._recorder.events)
        self._function_events = EventList(
            self._events, profile_memory=self.profile_memory, with_flops=self.with_flops
        )

    def __enter__(self) -> profile:
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._prepare_trace()
        self._start_trace()
        return self

    def __exit__(self, *exc) -> bool:
        if self.enabled:
            self._stop_trace()
        return False

    # ---- what it recorded ----------------------------------------------------------------
    def _check_finish(self) -> None:
        if self._function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    @property
    def function_events(self) -> EventList:
        self._check_finish()
        return self._function_events

    def key_averages(
        self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False
    ):
        """Matches `profile.key_averages`: an EventList of `FunctionEventAvg`, one per name."""
        self._check_finish()
        return self._function_events.key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name
        )

    def table(self, sort_by=None, row_limit=100, **kwargs) -> str:
        self._check_finish()
        return self._function_events.table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self) -> FunctionEventAvg:
        self._check_finish()
        return self._function_events.total_average()

    @property
    def self_cpu_time_total(self) -> float:
        self._check_finish()
        return self._function_events.self_cpu_time_total

    def export_chrome_trace(self, path: str) -> None:
        """Matches `profile.export_chrome_trace`: a Chrome trace JSON file at `path`."""
        self._check_finish()
        write_trace(self._function_events, path, self._origin_epoch_us, {})

    def __str__(self) -> str:
        self._check_finish()
        return str(self._function_events)


class _NoDeviceRanges:
    """emit_nvtx / emit_itt: they hand ranges to a GPU tool (Nsight, VTune) that dyngrad,
    running ops on NumPy or CuPy, cannot annotate."""

    tool = ""
    error = RuntimeError
    first = ""  # PyTorch's own sentence, where it has one

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled

    def __enter__(self):
        if not self.enabled:
            return self
        raise self.error(
            f"{self.first}{type(self).__name__} is not supported by dyngrad: it annotates "
            f"ranges for {self.tool}, which dyngrad's NumPy/CuPy ops cannot emit. Use "
            "torch.profiler.profile() and export_chrome_trace() for a timeline instead."
        )

    def __exit__(self, *exc) -> bool:
        return False


class emit_nvtx(_NoDeviceRanges):  # noqa: N801 - PyTorch's name
    """`torch.autograd.profiler.emit_nvtx`: raises on entry (dyngrad emits no NVTX ranges)."""

    tool = "NVIDIA's NVTX (nvprof / Nsight Systems)"
    error = AssertionError  # PyTorch's, on a build without CUDA
    first = "Torch not compiled with CUDA enabled. "


class emit_itt(_NoDeviceRanges):  # noqa: N801 - PyTorch's name
    """`torch.autograd.profiler.emit_itt`: raises on entry (dyngrad emits no ITT ranges)."""

    tool = "Intel's ITT (VTune)"
