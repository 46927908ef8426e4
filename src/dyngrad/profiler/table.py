"""The printed summary of a profile, in PyTorch's layout: right-aligned columns of width 12
(the name's and the input shapes' fitted to their content, up to 55 and 80), two spaces
apart, dashed rules above and below the header, and "Self CPU time total" at the foot."""

from __future__ import annotations

__all__ = ["build_table", "format_time", "format_share", "format_memory"]

_COLUMN = 12  # every time, share and count column
_GAP = 2  # spaces after every column, the last one included (as PyTorch prints)
_HEADERS = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]


def format_time(us: float, unit: str | None = None) -> str:
    """µs as PyTorch prints them: three decimals in s, ms or us, whichever fits."""
    if unit == "s" or (unit is None and us >= 1e6):
        return f"{us / 1e6:.3f}s"
    if unit == "ms" or (unit is None and us >= 1e3):
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def format_memory(nbytes: int) -> str:
    """Bytes as PyTorch prints them: two decimals in GB, MB or KB, else whole bytes."""
    for unit, size in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


def _trim_path(path: str, width: int) -> str:
    # the end of a long path is the part that says where: keep it, marked by "..."
    if len(path) > width:
        path = path[len(path) - width :]
        if len(path) > 3:
            path = "..." + path[3:]
    return path


def format_share(us: float, total: float) -> str:
    return "NaN" if total == 0 else f"{us * 100.0 / total:.2f}%"


def _sort_key(sort_by: str):
    # PyTorch's device columns answer to their cuda/xpu spellings too
    attribute = sort_by.replace("cuda", "device").replace("xpu", "device")
    return lambda event: getattr(event, attribute)


def build_table(
    events,
    sort_by=None,
    row_limit=100,
    max_name_column_width=55,
    max_shapes_column_width=80,
    max_src_column_width=75,
    header=None,
    top_level_events_only=False,
    time_unit=None,
    profile_memory=False,
) -> str:
    """The table of `events` (FunctionEvents or their averages); "" when there are none."""
    if len(events) == 0:
        return ""
    if sort_by is not None:
        events = sorted(events, key=_sort_key(sort_by), reverse=True)
    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    headers, widths = list(_HEADERS), [name_width] + [_COLUMN] * (len(_HEADERS) - 1)
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
        widths += [_COLUMN, _COLUMN]
    headers.append("# of Calls")
    widths.append(_COLUMN)
    with_shapes = any(e.input_shapes for e in events)
    if with_shapes:
        shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
        if max_shapes_column_width is not None:
            shapes_width = min(shapes_width, max_shapes_column_width)
        headers.append("Input Shapes")
        widths.append(shapes_width)
    stacks = [e.stack for e in events if e.stack]
    if stacks:  # the source column is left-aligned, the only one
        src_width = max(len(entry) for stack in stacks for entry in stack) + 4
        if max_src_column_width is not None:
            src_width = min(src_width, max_src_column_width)
        headers.append("Source Location")
        widths.append(src_width)
    rule = "".join("-" * w + " " * _GAP for w in widths)
    line_length = sum(w + _GAP for w in widths) - _GAP

    def row(values) -> str:
        cells = [f"{str(v):>{w}}" for v, w in zip(values, widths)]
        if stacks:
            cells[-1] = f"{str(values[-1]):<{widths[-1]}}"
        return "".join(cell + " " * _GAP for cell in cells)

    total = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [rule, row(headers), rule]
    shown = 0
    for event in events:
        if shown == row_limit:
            break
        if top_level_events_only and event.cpu_parent is not None:
            continue
        shown += 1
        name = event.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[: max_name_column_width - 3] + "..."
        values = [
            name,
            format_share(event.self_cpu_time_total, total),
            format_time(event.self_cpu_time_total, time_unit),
            format_share(event.cpu_time_total, total),
            format_time(event.cpu_time_total, time_unit),
            format_time(event.cpu_time, time_unit),
        ]
        if profile_memory:
            values += [
                format_memory(event.cpu_memory_usage),
                format_memory(event.self_cpu_memory_usage),
            ]
        values.append(event.count)
        if with_shapes:
            values.append(str(event.input_shapes)[: widths[headers.index("Input Shapes")]])
        if stacks:
            stack = event.stack or []
            values.append(_trim_path(stack[0], src_width) if stack else "")
        lines.append(row(values))
        if stacks:  # the rest of the stack below, one entry a line, then a blank line
            blank = [""] * (len(headers) - 1)
            lines += [row(blank + [_trim_path(entry, src_width)]) for entry in event.stack[1:]]
            lines.append(row(blank + [""]))
    lines += [rule, f"Self CPU time total: {format_time(total, time_unit)}"]
    return "".join(line + "\n" for line in lines)
