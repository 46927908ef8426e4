"""The dicts a module keeps its parameters, buffers, submodules and hooks in, and the count of
changes to any module's state.

# Note [Module state epoch]
# A replayed compiled call (Note [Replay] in _dynamo/replay.py) must know that no module it ran
# changed since it was traced: an attribute (`p`, `eps`, `training`), a parameter, a buffer, a
# submodule or a hook. Comparing all of them on every call costs more than a small model's
# forward. Instead every change made through the Module API counts here: `Module.__setattr__`
# and `__delattr__`, and each write into a module's stores, which are `Store`s (OrderedDicts
# whose writes count; reads are the plain dict's). A replay compares `epoch` with the value it
# saw last, and only when it moved compares the modules it ran in full. Writes that bypass the
# API (`module.__dict__[name] = v`, `object.__setattr__`) are not counted; the doc says so.
"""

from __future__ import annotations

from collections import OrderedDict

__all__ = ["Store", "epoch", "changed"]

epoch = 0


def changed() -> None:
    """Count one change to some module's state."""
    global epoch
    epoch += 1


class Store(OrderedDict):
    """An OrderedDict whose every write counts as a change of module state."""

    __slots__ = ()

    def __setitem__(self, key, value) -> None:
        changed()
        super().__setitem__(key, value)

    def __delitem__(self, key) -> None:
        changed()
        super().__delitem__(key)

    def pop(self, *args):
        changed()
        return super().pop(*args)

    def popitem(self, last: bool = True):
        changed()
        return super().popitem(last)

    def clear(self) -> None:
        changed()
        super().clear()

    def update(self, *args, **kwargs) -> None:
        changed()
        super().update(*args, **kwargs)

    def setdefault(self, key, default=None):
        changed()
        return super().setdefault(key, default)

    def move_to_end(self, key, last: bool = True) -> None:
        changed()
        super().move_to_end(key, last)

    def __ior__(self, other):
        changed()
        return super().__ior__(other)

    def __reduce__(self):
        # pickles and copies as a plain OrderedDict (a saved module loads anywhere); see
        # Module.__setstate__, which makes Stores of them again
        return (OrderedDict, (list(self.items()),))
