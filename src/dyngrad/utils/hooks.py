"""`torch.utils.hooks`: the handle that registering a hook returns."""

from __future__ import annotations

from .._handles import RemovableHandle

__all__ = ["RemovableHandle"]
