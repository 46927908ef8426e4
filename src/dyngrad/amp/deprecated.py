"""The deprecated per-device spellings, `torch.cpu.amp` and `torch.cuda.amp`: `autocast` and
`GradScaler` classes that warn (FutureWarning, PyTorch's text) and then behave as
`torch.amp.autocast(device)` / `torch.amp.GradScaler(device)`. One definition serves both
devices; each namespace makes its pair with `device_spellings`."""

from __future__ import annotations

import warnings

from .autocast_mode import autocast as _autocast
from .grad_scaler import GradScaler as _GradScaler

__all__ = ["device_spellings"]


def device_spellings(device: str, default_dtype, module: str) -> tuple[type, type]:
    """(autocast, GradScaler) as `torch.<device>.amp` has them, defined in `module`."""

    class autocast(_autocast):  # noqa: N801 - PyTorch's name
        def __init__(self, enabled: bool = True, dtype=default_dtype, cache_enabled: bool = True):
            warnings.warn(
                f"`torch.{device}.amp.autocast(args...)` is deprecated. Please use "
                f"`torch.amp.autocast('{device}', args...)` instead.",
                FutureWarning,
                stacklevel=2,
            )
            super().__init__(device, enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)

    class GradScaler(_GradScaler):
        def __init__(
            self,
            init_scale: float = 2.0**16,
            growth_factor: float = 2.0,
            backoff_factor: float = 0.5,
            growth_interval: int = 2000,
            enabled: bool = True,
        ) -> None:
            warnings.warn(
                f"`torch.{device}.amp.GradScaler(args...)` is deprecated. Please use "
                f"`torch.amp.GradScaler('{device}', args...)` instead.",
                FutureWarning,
                stacklevel=2,
            )
            super().__init__(
                device,
                init_scale=init_scale,
                growth_factor=growth_factor,
                backoff_factor=backoff_factor,
                growth_interval=growth_interval,
                enabled=enabled,
            )

    for cls, name in ((autocast, "autocast"), (GradScaler, "GradScaler")):
        cls.__module__, cls.__qualname__ = module, name
        cls.__doc__ = f"Matches `torch.{device}.amp.{name}`: deprecated (FutureWarning)."
    return autocast, GradScaler
