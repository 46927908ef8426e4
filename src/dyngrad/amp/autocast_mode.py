"""`autocast`: the mixed-precision region; inside it ops cast their inputs by PyTorch's policy.

# Note [Autocast]
# Entering an enabled region sets this thread's state (enabled, dtype, cache_enabled) and,
# while any region is open on any thread, installs `cast_inputs` as the op entry's hook (See
# Note [Autocast hook] in ops/table/record.py). Each op call then hands the hook its name and
# inputs; the hook looks the name up in the one policy table (See Note [Autocast policy]) and
# casts with `Tensor.to`, so the casts are recorded (`ToCopyBackward0`) and a gradient flows
# back to the parameter in the parameter's own dtype. A lower-precision op's inputs are
# bfloat16/float16 tensors, so the activations its node saves are too: half the bytes.
# As PyTorch: float64 tensors are never cast; a float32 leaf that requires grad (a
# parameter) is cast to the lower precision once per region (the cast cache, kept while the
# outermost region is open when cache_enabled; the cache is keyed by the tensor alone, so a
# nested region of another dtype reuses the outer cast, as PyTorch does).
"""

from __future__ import annotations

import functools
import threading
import warnings

import numpy as np

from .._tensor import Tensor
from ..graph.grad_mode import state as grad_state
from ..ops.table import record as recording
from ..runtime.device import device as Device
from ..runtime.dtypes import bfloat16, float16, float32
from ..runtime.sparse_coo import SparseCOO
from ..runtime.transfer import cuda_available
from ..utils import checkpoint_recompute
from .policy import FP32, LOWER_PRECISION_FP, POLICY

__all__ = [
    "autocast",
    "is_autocast_available",
    "is_autocast_enabled",
    "get_autocast_dtype",
    "set_autocast_enabled",
    "set_autocast_dtype",
    "is_autocast_cache_enabled",
    "set_autocast_cache_enabled",
    "clear_autocast_cache",
    "custom_fwd",
    "custom_bwd",
    "cast_inputs",
]


class _State(threading.local):
    def __init__(self) -> None:
        self.enabled = {"cpu": False, "cuda": False}
        self.dtype = {"cpu": bfloat16, "cuda": float16}
        self.cache_enabled = True
        self.nesting = 0
        self.cache: dict = {}  # id(parameter) -> (parameter, its cast): See Note [Autocast]


_state = _State()
_open_regions = 0  # on all threads: the hook is installed while > 0
_regions_lock = threading.Lock()


def is_autocast_available(device_type: str) -> bool:
    """Matches `torch.amp.is_autocast_available`."""
    return device_type in ("cpu", "cuda")


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """Matches `torch.is_autocast_enabled` (no argument means CUDA, as in PyTorch)."""
    return _state.enabled.get(device_type, False)


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    """Matches `torch.set_autocast_enabled(device_type, enabled)`."""
    _state.enabled[device_type] = bool(enabled)
    if enabled:
        recording.set_autocast(cast_inputs)  # until the last region closes


def get_autocast_dtype(device_type: str):
    """Matches `torch.get_autocast_dtype`."""
    return _state.dtype[device_type]


def set_autocast_dtype(device_type: str, dtype) -> None:
    """Matches `torch.set_autocast_dtype`."""
    _state.dtype[device_type] = dtype


def is_autocast_cache_enabled() -> bool:
    """Matches `torch.is_autocast_cache_enabled`."""
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Matches `torch.set_autocast_cache_enabled`."""
    _state.cache_enabled = bool(enabled)


def clear_autocast_cache() -> None:
    """Matches `torch.clear_autocast_cache`: forget this thread's cached parameter casts."""
    _state.cache.clear()


def _open_region(delta: int) -> None:
    global _open_regions
    with _regions_lock:
        _open_regions += delta
        recording.set_autocast(cast_inputs if _open_regions > 0 else None)


# ---- the hook: See Note [Autocast hook] -------------------------------------------------------


def _eligible(t) -> bool:
    # floating tensors other than float64 (PyTorch never casts double)
    if not isinstance(t, Tensor):
        return False
    kind = t._data.dtype.kind
    return kind == "V" or (kind == "f" and t._data.dtype.itemsize < 8)


_HOST_ARRAYS = (np.ndarray, SparseCOO)  # sparse COO tensors live on the host (NumPy)


def _device_of(args) -> str:
    for a in args:
        if isinstance(a, Tensor):
            return "cpu" if type(a._data) in _HOST_ARRAYS else "cuda"
    return "cpu"


def _cast(t, dtype, cache: bool):
    target = dtype.np
    if not _eligible(t) or t._data.dtype == target:
        return t
    # See Note [Autocast]: a parameter's cast to the lower precision is made once per region
    if cache and t._requires_grad and t._grad_fn is None and t._base is None:
        key = id(t)
        hit = _state.cache.get(key)
        if hit is not None and hit[0] is t:
            return hit[1]
        cast = _to(t, dtype)
        if grad_state.enabled and not grad_state.inference:
            _state.cache[key] = (t, cast)
        return cast
    return _to(t, dtype)


def _to(t, dtype):
    cast = t.to(dtype)
    if cast._grad_fn is not None:  # describe() shows which casts autocast made
        cast._grad_fn.metadata["autocast"] = dtype.name
    return cast


def _promoted(args) -> tuple:
    # PyTorch promotes among the eligible floating inputs: one type stays, a low-precision one
    # meets float32 at float32, and bfloat16 with float16 is PyTorch's error
    kinds = {a._data.dtype for a in args if _eligible(a)}
    if len(kinds) < 2:
        return args
    if np.dtype(np.float32) not in kinds:
        raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return tuple(_cast(a, float32, False) for a in args)


def cast_inputs(name: str, args: tuple) -> tuple:
    """`args` of op `name` cast as PyTorch's autocast policy says, on this thread's state."""
    kind = POLICY.get(name)
    if kind is None:
        return args
    device = _device_of(args)
    if not _state.enabled.get(device, False):
        return args
    if kind is LOWER_PRECISION_FP:
        dtype = _state.dtype[device]
        cache = _state.cache_enabled
        return tuple(_cast(a, dtype, cache) for a in args)
    if kind is FP32:
        return tuple(_cast(a, float32, False) for a in args)
    return _promoted(args)  # PROMOTE


# ---- the region -------------------------------------------------------------------------------


class autocast:
    """Matches `torch.amp.autocast`: a context manager and decorator.

    Inside an enabled "cpu" region, ops on PyTorch's lower-precision list (matmul, linear,
    conv...) cast their floating inputs to `dtype` (bfloat16 by default), ops on its float32
    list (losses, prod, cdist...) to float32, and cat/stack/index_copy to their widest input
    type (See Note [Autocast policy]). Without CUDA a "cuda" region disables itself with
    PyTorch's warning.
    """

    def __init__(
        self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None
    ) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = Device(device_type).type
        self.fast_dtype = get_autocast_dtype(self.device) if dtype is None else dtype
        self._cache_enabled = (
            is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        )
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
        state = _state
        self._previous = (
            state.enabled.get(self.device, False),
            state.dtype.get(self.device),
            state.cache_enabled,
        )
        state.enabled[self.device] = self._enabled
        state.dtype[self.device] = self.fast_dtype
        state.cache_enabled = self._cache_enabled
        state.nesting += 1
        _open_region(1)
        return self

    def __exit__(self, *exc) -> bool:
        state = _state
        state.nesting -= 1
        if state.nesting == 0 and self._cache_enabled:
            state.cache.clear()
        state.enabled[self.device], state.dtype[self.device], state.cache_enabled = self._previous
        _open_region(-1)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return func(*args, **kwargs)

        return decorated


# ---- custom Functions ---------------------------------------------------------------------------


def _cast_value(value, device_type: str, dtype):
    if isinstance(value, Tensor):
        return _cast(value, dtype, False) if _device_of((value,)) == device_type else value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_value(v, device_type, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast_value(v, device_type, dtype) for k, v in value.items()}
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Matches `torch.amp.custom_fwd`: a Function's forward that remembers the autocast state
    (for `custom_bwd`); with `cast_inputs`, runs with autocast off on inputs cast to it."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorated(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        ctx._fwd_used_autocast = False
        if not autocast_context:
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(
                *_cast_value(args, device_type, cast_inputs),
                **_cast_value(kwargs, device_type, cast_inputs),
            )

    return decorated


def custom_bwd(bwd=None, *, device_type: str):
    """Matches `torch.amp.custom_bwd`: backward under the forward's autocast state."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorated(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)

    return decorated


def _autocast_as_now():
    # checkpoint's recomputation runs under the autocast state of its forward (PyTorch keeps
    # the forward's autocast arguments): a factory of a region that enters it again
    kwargs = {
        "device_type": "cpu",
        "enabled": is_autocast_enabled("cpu"),
        "dtype": get_autocast_dtype("cpu"),
        "cache_enabled": is_autocast_cache_enabled(),
    }
    return lambda: autocast(**kwargs)


checkpoint_recompute.above.autocast_as_now = _autocast_as_now  # See Note [Calls up the layers]
