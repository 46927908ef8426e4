"""`RemovableHandle`: what registering a hook returns, for tensors, nodes and modules alike."""

from __future__ import annotations

import itertools

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """Matches `torch.utils.hooks.RemovableHandle`: `remove()` unregisters a hook, and drops
    its id from the `extra_dict` stores too (a module hook's with_kwargs/always_call flags)."""

    __slots__ = ("_store", "_extra", "id")
    _ids = itertools.count()

    def __init__(self, hooks_dict: dict, *, extra_dict=None):
        self._store = hooks_dict
        if extra_dict is None:
            extra_dict = ()
        elif isinstance(extra_dict, dict):
            extra_dict = (extra_dict,)
        self._extra = tuple(extra_dict)
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        self._store.pop(self.id, None)
        for store in self._extra:
            store.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
