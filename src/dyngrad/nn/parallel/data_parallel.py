"""`DataParallel` as PyTorch runs it without an accelerator: the wrapped module, called as is."""

from __future__ import annotations

from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Matches `torch.nn.DataParallel` on a machine with no GPU.

    The wrapped model is `self.module` (so state_dict keys gain a `module.` prefix),
    `device_ids` is empty, and forward calls the module directly, as PyTorch does when no
    accelerator is available; dyngrad never splits the batch.
    """

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """Matches `torch.nn.parallel.data_parallel` with no accelerator: it raises."""
    raise RuntimeError("device type could not be determined")
