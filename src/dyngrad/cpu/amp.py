"""`torch.cpu.amp`: the deprecated spellings of `torch.amp.autocast("cpu")` and GradScaler."""

from __future__ import annotations

import warnings

from ..amp.autocast_mode import autocast as _autocast
from ..amp.grad_scaler import GradScaler as _GradScaler
from ..runtime.dtypes import bfloat16

__all__ = ["autocast", "GradScaler"]


class autocast(_autocast):
    """Matches `torch.cpu.amp.autocast`: deprecated (FutureWarning) for autocast("cpu")."""

    def __init__(self, enabled: bool = True, dtype=bfloat16, cache_enabled: bool = True):
        warnings.warn(
            "`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
            "`torch.amp.autocast('cpu', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """Matches `torch.cpu.amp.GradScaler`: deprecated (FutureWarning)."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        warnings.warn(
            "`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
            "`torch.amp.GradScaler('cpu', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(
            "cpu",
            init_scale=init_scale,
            growth_factor=growth_factor,
            backoff_factor=backoff_factor,
            growth_interval=growth_interval,
            enabled=enabled,
        )
