"""`torch.profiler.profile`: a profile over steps, recording as its schedule says, handing each
finished window to `on_trace_ready`."""

from __future__ import annotations

import enum
import os
import socket
import time
import warnings

from ..autograd.profiler import record_function
from . import legacy
from .schedule import ProfilerAction, default_schedule
from .trace import write_trace

__all__ = ["ProfilerActivity", "profile", "supported_activities", "tensorboard_trace_handler"]

A = ProfilerAction
_warned_of_cycles = False  # PyTorch warns once per process


class ProfilerActivity(enum.Enum):
    """Matches `torch.profiler.ProfilerActivity`; dyngrad records CPU activity only."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


def supported_activities() -> set:
    """Matches `torch.profiler.supported_activities` on a CPU-only build."""
    return {ProfilerActivity.CPU}


def tensorboard_trace_handler(
    dir_name: str,
    worker_name: str | None = None,
    use_gzip: bool = False,
    use_python_export: bool = False,
):
    """Matches `torch.profiler.tensorboard_trace_handler`: an `on_trace_ready` that writes
    `<worker_name>.<time_ns>.pt.trace.json[.gz]` into `dir_name` (made if missing)."""

    def handler_fn(prof) -> None:
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as exc:
                raise RuntimeError("Can't create directory: " + dir_name) from exc
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker_name}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, name))

    return handler_fn


class profile:  # noqa: N801 - PyTorch's name
    """Matches `torch.profiler.profile`: a context manager whose `step()` marks training steps;
    `key_averages()`, `events()` and `export_chrome_trace()` give the last recorded window.

    >>> every = torch.profiler.schedule(wait=1, warmup=1, active=2)
    >>> save = torch.profiler.tensorboard_trace_handler("log")
    >>> with torch.profiler.profile(schedule=every, on_trace_ready=save) as p:
    ...     for batch in loader:
    ...         train_step(batch)
    ...         p.step()
    """

    def __init__(
        self,
        *,
        activities=None,
        schedule=None,
        on_trace_ready=None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config=None,
        execution_trace_observer=None,
        acc_events: bool = False,
        use_cuda=None,
        custom_trace_id_callback=None,
        post_processing_timeout_s=None,
    ) -> None:
        self.activities = set(activities) if activities else supported_activities()
        if use_cuda is not None:
            warnings.warn(
                "`use_cuda` is deprecated, use `activities` argument instead",
                FutureWarning,
                stacklevel=2,
            )
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.record_steps = schedule is not None  # "ProfilerStep#N" ranges mark the steps
        self.schedule = schedule if schedule is not None else default_schedule
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        self.profiler = None  # the window's autograd profiler, as PyTorch's
        self.metadata: dict = {}
        self.current_action = self.schedule(self.step_num)
        if self.current_action == A.DEVICE_STOPPED:
            raise ValueError(
                "ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not "
                "be returned by a user-provided schedule"
            )

    # ---- PyTorch's transitions between two steps' actions ----------------------------------
    def _actions(self, prev, now) -> list:
        prepare, start, stop, ready = (
            self.prepare_trace,
            self.start_trace,
            self.stop_trace,
            self._trace_ready,
        )
        table = {
            (A.NONE, A.WARMUP): [prepare],
            (A.NONE, A.RECORD): [prepare, start],
            (A.NONE, A.RECORD_AND_SAVE): [prepare, start],
            (A.WARMUP, A.NONE): [
                lambda: warnings.warn("Incorrect schedule: WARMUP followed by NONE", stacklevel=4),
                start,
                stop,
            ],
            (A.WARMUP, A.RECORD): [start],
            (A.WARMUP, A.RECORD_AND_SAVE): [start],
            (A.RECORD, A.NONE): [
                lambda: warnings.warn("Incorrect schedule: RECORD followed by NONE", stacklevel=4),
                stop,
            ],
            (A.RECORD, A.WARMUP): [
                lambda: warnings.warn(
                    "Incorrect schedule: RECORD followed by WARMUP", stacklevel=4
                ),
                stop,
            ],
            (A.RECORD_AND_SAVE, A.NONE): [stop, ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [stop, ready, prepare],
            (A.RECORD_AND_SAVE, A.RECORD): [stop, ready, prepare, start],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [stop, ready, prepare, start],
            (A.WARMUP, None): [start, stop],
            (A.RECORD, None): [stop, ready],
            (A.RECORD_AND_SAVE, None): [stop, ready],
        }
        return table.get((prev, now), [])

    def _transit_action(self, prev, now) -> None:
        for action in self._actions(prev, now):
            action()

    def prepare_trace(self) -> None:
        global _warned_of_cycles
        if self.profiler is not None and not self.acc_events and not _warned_of_cycles:
            _warned_of_cycles = True
            warnings.warn(
                "Warning: Profiler clears events at the end of each cycle. Only events from "
                "the current cycle will be reported. To keep events across cycles, set "
                "acc_events=True.",
                stacklevel=2,
            )
        if self.profiler is None or not self.acc_events:
            self.profiler = legacy.profile(
                use_cpu=ProfilerActivity.CPU in self.activities,
                record_shapes=self.record_shapes,
                with_flops=self.with_flops,
                profile_memory=self.profile_memory,
                with_stack=self.with_stack,
                with_modules=self.with_modules,
                acc_events=self.acc_events,
            )
        self.profiler._prepare_trace()

    def start_trace(self) -> None:
        self.profiler._start_trace()

    def stop_trace(self) -> None:
        self.profiler._stop_trace()

    def _trace_ready(self) -> None:
        if self.on_trace_ready:
            self.on_trace_ready(self)

    # ---- the user's calls ---------------------------------------------------------------------
    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc) -> bool:
        self.stop()
        return False

    def start(self) -> None:
        self._transit_action(A.NONE, self.current_action)
        self._enter_step()

    def stop(self) -> None:
        self._exit_step()
        self._transit_action(self.current_action, None)

    def step(self) -> None:
        """Matches `profile.step`: the next step begins; the schedule says what it records."""
        self._exit_step()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(prev, self.current_action)
        self._enter_step()

    def _enter_step(self) -> None:
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _exit_step(self) -> None:
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None

    # ---- what the last window recorded --------------------------------------------------------
    def _recorded(self):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self.profiler

    def key_averages(
        self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False
    ):
        """Matches `profile.key_averages`: the window's events averaged per name."""
        return self._recorded().key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name
        )

    def events(self):
        """Matches `profile.events`: the window's FunctionEvents, in order of start."""
        return self._recorded().function_events

    def export_chrome_trace(self, path: str) -> None:
        """Matches `profile.export_chrome_trace`: a Chrome trace JSON file (gzip for .gz)."""
        recorded = self._recorded()
        write_trace(recorded.function_events, path, recorded._origin_epoch_us, self.metadata)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Matches `profile.export_stacks`: the window's stacks for a flame graph."""
        self.events().export_stacks(path, metric)

    def add_metadata(self, key: str, value: str) -> None:
        """Matches `profile.add_metadata`: a string entry in the exported trace."""
        self.metadata[key] = value

    def add_metadata_json(self, key: str, value: str) -> None:
        """Matches `profile.add_metadata_json`: a JSON entry in the exported trace."""
        self.metadata[key] = value
