"""`torch.is_storage`: whether an object is a tensor's storage (`Tensor.untyped_storage()`)."""

from __future__ import annotations

from ._tensor import _Storage

__all__ = ["is_storage"]


def is_storage(obj) -> bool:
    """Matches `torch.is_storage`."""
    return isinstance(obj, _Storage)
