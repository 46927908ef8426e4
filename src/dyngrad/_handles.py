"""`RemovableHandle`: what registering a hook returns, for tensors, nodes and modules alike."""

from __future__ import annotations

import itertools

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """Matches `torch.utils.hooks.RemovableHandle`: `remove()` unregisters a hook."""

    __slots__ = ("_store", "id")
    _ids = itertools.count()

    def __init__(self, store: dict):
        self._store = store
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        self._store.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
