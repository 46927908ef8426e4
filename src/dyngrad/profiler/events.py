"""What a profile recorded: `FunctionEvent`, their averages (`FunctionEventAvg`) and
`EventList` (key_averages, table, Chrome trace), with PyTorch's names and units (µs)."""

from __future__ import annotations

import enum
import json
from collections import defaultdict

from .table import build_table, format_time

__all__ = ["DeviceType", "Interval", "FunctionEvent", "FunctionEventAvg", "EventList"]


class DeviceType(enum.Enum):
    """Matches `torch.autograd.DeviceType` (the members a profile can meet here)."""

    CPU = 0
    CUDA = 1


class Interval:
    """Matches `torch.autograd.profiler_util.Interval`: start and end in µs."""

    def __init__(self, start: float, end: float) -> None:
        self.start = start
        self.end = end

    def elapsed_us(self) -> float:
        return self.end - self.start


class _FormattedTimes:
    """The `*_str` forms of the times, and the per-call averages."""

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def device_time(self) -> float:
        return 0.0 if self.count == 0 else self.device_time_total / self.count

    cpu_time_str = property(lambda self: format_time(self.cpu_time))
    cpu_time_total_str = property(lambda self: format_time(self.cpu_time_total))
    self_cpu_time_total_str = property(lambda self: format_time(self.self_cpu_time_total))
    device_time_str = property(lambda self: format_time(self.device_time))
    device_time_total_str = property(lambda self: format_time(self.device_time_total))
    self_device_time_total_str = property(lambda self: format_time(self.self_device_time_total))


class FunctionEvent(_FormattedTimes):
    """Matches `torch.autograd.profiler_util.FunctionEvent`: one op, backward node or range.

    `kind` says which (dyngrad's): "cpu_op" (an op or a backward node) or "user_annotation"
    (a `record_function` range, the optimizer's and DataLoader's, `ProfilerStep#N`).
    """

    # PyTorch's fields that dyngrad records no value for, or the same for every event: class
    # defaults, so that an event costs its own fields only (a profile makes one per op)
    count = 1
    node_id = -1
    device_type = DeviceType.CPU
    device_index = 0
    is_legacy = is_async = is_remote = False
    use_device = None
    flops = 0
    overload_name = ""
    scope = 0
    sequence_nr = -1  # the autograd node's: links a forward op to its backward
    fwd_thread = 0
    cpu_memory_usage = device_memory_usage = 0
    device_time_total = self_device_time_total = 0.0
    cpu_parent = None

    def __init__(self, id, name, thread, start_ns, end_ns, input_shapes, kind, trace_name=None):
        self.id = id
        self.name = name
        self.trace_name = trace_name if trace_name is not None else name
        self.thread = thread
        self.start_ns = start_ns
        self.end_ns = end_ns
        self.input_shapes = input_shapes
        self.kind = kind
        self.is_user_annotation = kind == "user_annotation"
        self.cpu_children: list = []
        self.stack: list = []
        self.origin_ns = 0  # the profile's start: `time_range` counts from it

    @property
    def kernels(self) -> list:
        return []  # device kernels: none on CPU

    @property
    def key(self) -> str:
        return self.name

    @property
    def time_range(self) -> Interval:
        return Interval(
            (self.start_ns - self.origin_ns) / 1e3, (self.end_ns - self.origin_ns) / 1e3
        )

    @property
    def cpu_time_total(self) -> float:
        return (self.end_ns - self.start_ns) / 1e3

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_device_memory_usage(self) -> int:
        return 0

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_str} "
            f"start_us={self.time_range.start:.3f} end_us={self.time_range.end:.3f} "
            f"cpu_children={[c.id for c in self.cpu_children]} "
            f"input_shapes={self.input_shapes} thread={self.thread}>"
        )


class FunctionEventAvg(_FormattedTimes):
    """Matches `torch.autograd.profiler_util.FunctionEventAvg`: the events of one key summed."""

    def __init__(self) -> None:
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = self.is_remote = self.is_legacy = self.is_user_annotation = False
        self.use_device = None
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.device_time_total = self.self_device_time_total = 0.0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = self.device_memory_usage = 0
        self.self_cpu_memory_usage = self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.flops = 0

    def add(self, other) -> FunctionEventAvg:
        if self.key is None:
            self.key = other.key
            for name in ("node_id", "is_async", "is_remote", "cpu_parent", "cpu_children"):
                setattr(self, name, getattr(other, name))
            for name in ("overload_name", "input_shapes", "stack", "scope", "device_type"):
                setattr(self, name, getattr(other, name))
            self.is_legacy, self.use_device = other.is_legacy, other.use_device
            self.is_user_annotation = other.is_user_annotation
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.count += other.count
        return self

    __iadd__ = add

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
            f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes}>"
        )


class EventList(list):
    """Matches `torch.autograd.profiler_util.EventList`: a list of events with averages,
    a printed table and a Chrome trace."""

    def __init__(self, *args, use_device=None, profile_memory=False, with_flops=False) -> None:
        super().__init__(*args)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._tree_built = True  # the recorder links parents and children as it records

    def __str__(self) -> str:
        return self.table()

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def table(
        self,
        sort_by=None,
        row_limit=100,
        max_src_column_width=75,
        max_name_column_width=55,
        max_shapes_column_width=80,
        header=None,
        top_level_events_only=False,
        time_unit=None,
    ) -> str:
        """Matches `EventList.table`: PyTorch's columns, sorted by `sort_by` (descending)."""
        return build_table(
            self,
            sort_by=sort_by,
            row_limit=row_limit,
            profile_memory=self._profile_memory,
            max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width,
            header=header,
            top_level_events_only=top_level_events_only,
            time_unit=time_unit,
        )

    def key_averages(
        self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False
    ):
        """Matches `EventList.key_averages`: one `FunctionEventAvg` per name (and input
        shapes, and top stack entries, when asked), in order of first appearance."""
        stats: dict = defaultdict(FunctionEventAvg)
        for event in self:
            key = [
                event.key,
                str(event.node_id),
                str(event.device_type),
                str(event.is_user_annotation),
            ]
            if group_by_input_shapes:
                key.append(str(event.input_shapes))
            if group_by_stack_n > 0:
                key += event.stack[:group_by_stack_n]
            stats[tuple(key)].add(event)
        averages = EventList(
            stats.values(),
            use_device=self._use_device,
            profile_memory=self._profile_memory,
            with_flops=self._with_flops,
        )
        for event in averages:
            event.stack = event.stack[:group_by_stack_n]
            if not group_by_input_shapes:
                event.input_shapes = ""
            if not group_by_overload_name:
                event.overload_name = ""
        return averages

    def total_average(self) -> FunctionEventAvg:
        """Matches `EventList.total_average`: every event summed, under the key "Total"."""
        total = FunctionEventAvg()
        for event in self:
            total.key = event.key  # `add` checks nothing here; the key is set after
            total.add(event)
        total.key = "Total"
        return total

    def supported_export_stacks_metrics(self) -> list:
        return ["self_cpu_time_total", "self_cuda_time_total", "self_xpu_time_total"]

    def export_stacks(self, path: str, metric: str) -> None:
        """Matches `EventList.export_stacks`: one `outer;...;inner value` line per event with
        a stack (profile with `with_stack=True`), the input of flame graph tools."""
        if metric not in self.supported_export_stacks_metrics():
            raise ValueError(
                "metric should be one of: " + str(self.supported_export_stacks_metrics())
            )
        attribute = metric.replace("cuda", "device").replace("xpu", "device")
        spaces = str.maketrans(" ;\t\n", "____")
        with open(path, "w") as f:
            for event in self:
                value = int(getattr(event, attribute, 0))
                if event.stack and value > 0:
                    frames = ";".join(entry.translate(spaces) for entry in reversed(event.stack))
                    f.write(f"{frames} {value}\n")

    def export_chrome_trace(self, path: str) -> None:
        """Matches `EventList.export_chrome_trace`: a JSON array of complete ("X") events."""
        rows = [
            {
                "name": e.trace_name,
                "ph": "X",
                "ts": e.time_range.start,
                "dur": e.time_range.elapsed_us(),
                "tid": e.thread,
                "pid": "CPU functions",
                "args": {},
            }
            for e in self
        ]
        with open(path, "w") as f:
            json.dump(rows, f)
