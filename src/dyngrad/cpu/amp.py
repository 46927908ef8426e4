"""`torch.cpu.amp`: the deprecated spellings of `torch.amp.autocast("cpu")` and GradScaler."""

from __future__ import annotations

from ..amp.deprecated import device_spellings
from ..runtime.dtypes import bfloat16

__all__ = ["autocast", "GradScaler"]

autocast, GradScaler = device_spellings("cpu", bfloat16, __name__)
