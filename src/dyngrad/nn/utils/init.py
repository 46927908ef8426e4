"""`torch.nn.utils.init`: `skip_init`, a module built without running its initialisation."""

from __future__ import annotations

import inspect

from ...random import fork_rng
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """Matches `torch.nn.utils.skip_init`: `module_cls(*args, **kwargs)` whose parameters the
    caller initialises. PyTorch builds it on the meta device and leaves the memory
    uninitialised; dyngrad has no meta device, so it builds it as usual with the default
    generator forked: the values are construction's, and the generator has not moved, as
    after PyTorch's `skip_init`."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs["device"] = kwargs.pop("device", "cpu")
    with fork_rng():
        return module_cls(*args, **kwargs)
