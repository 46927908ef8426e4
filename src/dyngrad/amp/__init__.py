"""`dyngrad.amp`: PyTorch's automatic mixed precision interface (`autocast`, `GradScaler`)."""

from __future__ import annotations

from .autocast_mode import (
    autocast,
    custom_bwd,
    custom_fwd,
    get_autocast_dtype,
    is_autocast_available,
    is_autocast_enabled,
)
from .grad_scaler import GradScaler

__all__ = [
    "autocast",
    "GradScaler",
    "custom_fwd",
    "custom_bwd",
    "is_autocast_available",
    "is_autocast_enabled",
    "get_autocast_dtype",
]
