"""The warn-always flag (`torch.set_warn_always`): PyTorch's warn-once warnings then warn
every time. Kept this low so any layer's once-per-process warning can consult it."""

from __future__ import annotations

__all__ = ["set_warn_always", "is_warn_always_enabled", "warn_once"]

_warn_always = False
_warned: set = set()


def set_warn_always(b: bool, /) -> None:
    """Matches `torch.set_warn_always`."""
    global _warn_always
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _warn_always = b


def is_warn_always_enabled() -> bool:
    """Matches `torch.is_warn_always_enabled`."""
    return _warn_always


def warn_once(key: str) -> bool:
    """Whether a warn-once warning named `key` is due: the first time, or always when the
    warn-always flag is set (PyTorch's TORCH_WARN_ONCE)."""
    if _warn_always:
        return True
    if key in _warned:
        return False
    _warned.add(key)
    return True
