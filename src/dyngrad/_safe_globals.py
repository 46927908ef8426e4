"""The classes and functions a `weights_only` load may use beyond tensors: `add_safe_globals`."""

from __future__ import annotations

from collections.abc import Callable

__all__ = [
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "safe_globals",
    "allowed_globals",
]

# As in torch, one set for the process (not per thread): what the user vouches for.
_marked: set = set()


def add_safe_globals(safe_globals: list[Callable | tuple[Callable, str]]) -> None:
    """Matches `torch.serialization.add_safe_globals`: marks globals safe for weights_only loads.

    Each item is a class or function, named in a checkpoint as `{__module__}.{__qualname__}`,
    or a pair (class or function, the full name a checkpoint calls it by).
    """
    global _marked
    _marked = _marked | set(safe_globals)


def get_safe_globals() -> list[Callable | tuple[Callable, str]]:
    """Matches `torch.serialization.get_safe_globals`: the globals marked safe."""
    return list(_marked)


def clear_safe_globals() -> None:
    """Matches `torch.serialization.clear_safe_globals`."""
    global _marked
    _marked = set()


class safe_globals:
    """Matches `torch.serialization.safe_globals`: globals marked safe inside a `with` block.

    >>> with dyngrad.serialization.safe_globals([Net]):
    ...     model = dyngrad.load("model.pt")
    """

    def __init__(self, safe_globals: list[Callable | tuple[Callable, str]]) -> None:
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc) -> None:
        global _marked
        _marked = _marked - set(self.safe_globals)


def allowed_globals() -> dict[str, object]:
    """The marked globals by the names a checkpoint may call them; raises torch's errors."""
    allowed = {}
    for item in _marked:
        if isinstance(item, tuple):
            if len(item) != 2:
                raise ValueError(
                    "Expected tuple of length 2 (global, str of callable full path), but got "
                    f"tuple of length: {len(item)}"
                )
            if type(item[1]) is not str:
                raise TypeError(
                    "Expected second item in tuple to be str of callable full path, but got: "
                    f"{type(item[1])}"
                )
            allowed[item[1]] = item[0]
        else:
            allowed[f"{item.__module__}.{item.__qualname__}"] = item
    return allowed
