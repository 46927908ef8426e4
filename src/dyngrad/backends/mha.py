"""`torch.backends.mha`: the switch for PyTorch's fused transformer fast path."""

from __future__ import annotations

_fastpath_enabled = True


def get_fastpath_enabled() -> bool:
    """Matches `torch.backends.mha.get_fastpath_enabled` (dyngrad's encoder reads it too)."""
    return _fastpath_enabled


def set_fastpath_enabled(value: bool) -> None:
    global _fastpath_enabled
    _fastpath_enabled = bool(value)
