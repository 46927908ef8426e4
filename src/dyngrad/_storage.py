"""`torch.is_storage`: whether an object is a storage (untyped or typed)."""

from __future__ import annotations

from .runtime.storage import TypedStorage, UntypedStorage

__all__ = ["is_storage"]


def is_storage(obj) -> bool:
    """Matches `torch.is_storage`."""
    return isinstance(obj, (UntypedStorage, TypedStorage))
