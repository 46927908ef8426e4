"""`torch.cuda.amp`: the deprecated spellings of `torch.amp.autocast("cuda")` and GradScaler."""

from __future__ import annotations

import functools
import warnings

from ..amp.autocast_mode import autocast as _autocast
from ..amp.autocast_mode import custom_bwd as _custom_bwd
from ..amp.autocast_mode import custom_fwd as _custom_fwd
from ..amp.grad_scaler import GradScaler as _GradScaler
from ..runtime.dtypes import float16

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(_autocast):
    """Matches `torch.cuda.amp.autocast`: deprecated (FutureWarning), disabled without CUDA."""

    def __init__(self, enabled: bool = True, dtype=float16, cache_enabled: bool = True):
        warnings.warn(
            "`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
            "`torch.amp.autocast('cuda', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """Matches `torch.cuda.amp.GradScaler`: deprecated (FutureWarning)."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        warnings.warn(
            "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
            "`torch.amp.GradScaler('cuda', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(
            "cuda",
            init_scale=init_scale,
            growth_factor=growth_factor,
            backoff_factor=backoff_factor,
            growth_interval=growth_interval,
            enabled=enabled,
        )


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Matches `torch.cuda.amp.custom_fwd` (deprecated for `torch.amp.custom_fwd`)."""
    warnings.warn(
        "`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
        "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return (
        functools.partial(_custom_fwd, device_type="cuda", cast_inputs=cast_inputs)(fwd)
        if fwd is not None
        else functools.partial(_custom_fwd, device_type="cuda", cast_inputs=cast_inputs)
    )


def custom_bwd(bwd):
    """Matches `torch.cuda.amp.custom_bwd` (deprecated for `torch.amp.custom_bwd`)."""
    warnings.warn(
        "`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
        "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return _custom_bwd(bwd, device_type="cuda")
