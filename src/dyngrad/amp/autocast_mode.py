"""`autocast`: the mixed-precision context; on dyngrad's CPU it records its state only."""

from __future__ import annotations

import functools
import threading
import warnings

from ..runtime.device import device as Device
from ..runtime.dtypes import bfloat16, float16
from ..runtime.transfer import cuda_available

__all__ = [
    "autocast",
    "is_autocast_available",
    "is_autocast_enabled",
    "get_autocast_dtype",
    "custom_fwd",
    "custom_bwd",
]


class _State(threading.local):
    def __init__(self) -> None:
        self.enabled = {"cpu": False, "cuda": False}
        self.dtype = {"cpu": bfloat16, "cuda": float16}


_state = _State()


def is_autocast_available(device_type: str) -> bool:
    """Matches `torch.amp.is_autocast_available`."""
    return device_type in ("cpu", "cuda")


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """Matches `torch.is_autocast_enabled` (no argument means CUDA, as in PyTorch)."""
    return _state.enabled.get(device_type, False)


def get_autocast_dtype(device_type: str):
    """Matches `torch.get_autocast_dtype`."""
    return _state.dtype[device_type]


class autocast:
    """Matches `torch.amp.autocast`'s interface: a context manager and decorator.

    dyngrad does not lower precision yet: inside an enabled CPU autocast region ops run in
    their inputs' dtype (PyTorch would run matmuls and convolutions in bfloat16), so results
    are more precise than PyTorch's. Without CUDA a "cuda" autocast disables itself with
    PyTorch's warning, as PyTorch does.
    """

    def __init__(
        self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None
    ) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = Device(device_type).type
        self.fast_dtype = get_autocast_dtype(self.device) if dtype is None else dtype
        self._cache_enabled = True if cache_enabled is None else cache_enabled
        self._enabled = enabled
        if self.device == "cuda" and enabled and not cuda_available():
            warnings.warn(
                "CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2
            )
            self._enabled = False
        elif self.device == "cpu" and enabled and self.fast_dtype not in (bfloat16, float16):
            warnings.warn(
                "In CPU autocast, but the target dtype is not supported. Disabling "
                "autocast.\nCPU Autocast only supports dtypes of torch.bfloat16, "
                "torch.float16 currently.",
                stacklevel=2,
            )
            self._enabled = False

    def __enter__(self):
        self._previous = (_state.enabled.get(self.device, False), _state.dtype.get(self.device))
        _state.enabled[self.device] = self._enabled
        if self._enabled:
            _state.dtype[self.device] = self.fast_dtype
        return self

    def __exit__(self, *exc) -> bool:
        _state.enabled[self.device], _state.dtype[self.device] = self._previous
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return func(*args, **kwargs)

        return decorated


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Matches `torch.amp.custom_fwd`: a Function's forward under its own autocast state."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    if cast_inputs is None:
        return fwd

    @functools.wraps(fwd)
    def decorated(*args, **kwargs):
        with autocast(device_type, enabled=False):
            return fwd(*args, **kwargs)

    return decorated


def custom_bwd(bwd=None, *, device_type: str):
    """Matches `torch.amp.custom_bwd`: backward under the forward's autocast state."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    return bwd
