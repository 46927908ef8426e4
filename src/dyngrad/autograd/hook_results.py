"""What a backward hook may return, checked as PyTorch checks it.

A tensor hook returns None or a gradient of the same size and type; a node hook returns None
or a tuple of as many gradients as it was given, None where it was given None; a
post-accumulate-grad hook returns None. Anything else raises PyTorch's error, naming the hook,
instead of flowing on as a wrong gradient.
"""

from __future__ import annotations

from .._tensor import Tensor

__all__ = ["checked_value", "checked_values", "check_post_accumulate"]


def _name(hook) -> str:
    return getattr(hook, "__name__", "<unknown>")


def checked_value(hook, old: Tensor, new) -> Tensor:
    """A tensor hook's result `new` in place of the gradient `old`."""
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    _same_kind(hook, old, new)
    return new


def checked_values(hook, old: tuple, new) -> list:
    """A node hook's result `new` in place of the gradients `old`."""
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != len(old):
        raise RuntimeError(
            f"hook '{_name(hook)}' has returned an incorrect number of values (got {len(new)}, "
            f"but expected {len(old)})"
        )
    for o, n in zip(old, new):
        if n is None:
            continue
        if not isinstance(n, Tensor):
            raise TypeError(f"expected Variable (got '{type(n).__name__}')")
        if o is None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        _same_kind(hook, o, n)
    return list(new)


def check_post_accumulate(hook, var: Tensor, result) -> None:
    """A post-accumulate-grad hook returns None."""
    if result is not None:
        checked_value(hook, var, result)
        raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def _same_kind(hook, old: Tensor, new: Tensor) -> None:
    if new._data.shape != old._data.shape:
        raise RuntimeError(f"hook '{_name(hook)}' has changed the size of value")
    if new.dtype is not old.dtype:
        raise RuntimeError(
            f"hook '{_name(hook)}' has changed the type of value (was {old.type()} got "
            f"{new.type()})"
        )
