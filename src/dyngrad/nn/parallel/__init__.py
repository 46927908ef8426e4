"""`torch.nn.parallel`: `DataParallel` (single process on CPU) and `DistributedDataParallel`."""

from __future__ import annotations

from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
