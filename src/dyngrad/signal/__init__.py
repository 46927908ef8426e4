"""`torch.signal`: window functions (`torch.signal.windows`)."""

from __future__ import annotations

from . import windows

__all__ = ["windows"]
