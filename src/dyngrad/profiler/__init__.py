"""`torch.profiler`: times every op, backward node and named range a program runs, on the
same hooks the doctor uses (See Note [What a profile records]); costs nothing when off.

>>> with torch.profiler.profile() as prof:
...     loss = model(x).sum(); loss.backward()
>>> print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
"""

from __future__ import annotations

from ..autograd.profiler import record_function
from . import legacy
from .events import DeviceType, EventList, FunctionEvent, FunctionEventAvg
from .profile import ProfilerActivity, profile, supported_activities, tensorboard_trace_handler
from .schedule import ProfilerAction, schedule

__all__ = [
    "profile",
    "record_function",
    "schedule",
    "ProfilerAction",
    "ProfilerActivity",
    "supported_activities",
    "tensorboard_trace_handler",
    "DeviceType",
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "legacy",
]
