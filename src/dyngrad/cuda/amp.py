"""`torch.cuda.amp`: the deprecated spellings of `torch.amp.autocast("cuda")` and GradScaler."""

from __future__ import annotations

import functools
import warnings

from ..amp.autocast_mode import custom_bwd as _custom_bwd
from ..amp.autocast_mode import custom_fwd as _custom_fwd
from ..amp.deprecated import device_spellings
from ..runtime.dtypes import float16

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


autocast, GradScaler = device_spellings("cuda", float16, __name__)


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
