"""`torch.storage`: the storage classes (See Note [Storage objects] in runtime/storage.py)."""

from __future__ import annotations

from .runtime.storage import (  # noqa: F401 - the private names are PyTorch's, for its tests
    TypedStorage,
    UntypedStorage,
    _get_always_warn_typed_storage_removal,
    _LegacyStorage,
    _set_always_warn_typed_storage_removal,
)
from .runtime.storage import (  # noqa: F401
    warn_typed_storage_removal as _warn_typed_storage_removal,
)

__all__ = ["TypedStorage", "UntypedStorage"]
