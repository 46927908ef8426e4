"""`DistributedDataParallel`: a placeholder until dyngrad's torch.distributed exists."""

from __future__ import annotations

from ..modules.module import Module

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    """`torch.nn.parallel.DistributedDataParallel`: constructing one raises, for now.

    The class exists so that `isinstance(model, DistributedDataParallel)` checks work.
    """

    def __init__(self, module: Module, *args, **kwargs):
        raise NotImplementedError(
            "torch.nn.parallel.DistributedDataParallel is not supported by dyngrad yet "
            "(torch.distributed.is_available() is False); train in one process, or wrap the "
            "model in nn.DataParallel"
        )
