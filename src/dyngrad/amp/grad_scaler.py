"""`GradScaler`: loss scaling for mixed precision, and a pass-through when disabled.

# Note [Scaled gradients]
# Between `scaler.scale(loss).backward()` and `scaler.unscale_(optimizer)` (or `step`, which
# unscales first) every gradient the backward wrote is multiplied by the scale (65536 by
# default). Reading them there (clipping by norm, logging a gradient norm) sees values 65536
# times too large: PyTorch's AMP recipe says to call `unscale_` first. A scaler records what a
# diagnostic needs to name that mistake, without the doctor having to know its insides:
#   live_scalers()              the enabled scalers alive now
#   scaler.scaled_grads(params) those of `params` whose `.grad` still carries the scale:
#                               `scale()` ran since the last `update()`, and no `unscale_`
#                               (or `step`) of an optimizer holding the parameter since
"""

from __future__ import annotations

import warnings
import weakref
from collections import abc, defaultdict

import numpy as np

from .._tensor import Tensor
from ..graph.grad_mode import no_grad
from ..runtime.transfer import cuda_available

__all__ = ["GradScaler", "OptState", "live_scalers"]


class OptState:
    """Matches `torch.amp.grad_scaler.OptState`: where an optimizer is in its step."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


_live: weakref.WeakSet = weakref.WeakSet()


def live_scalers() -> list:
    """The enabled GradScalers alive now (See Note [Scaled gradients])."""
    return list(_live)


def _refresh_per_optimizer_state() -> dict:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Matches `torch.amp.GradScaler`.

    Disabled (explicitly, or "cuda" without CUDA, with PyTorch's warning) it passes through:
    `scale(loss)` is `loss`, `step(opt)` is `opt.step()`. Enabled it scales the loss by a
    float32 scale, unscales the gradients before the step, skips steps with inf/NaN
    gradients, and grows or backs off the scale as PyTorch does. See Note [Scaled gradients]
    for what it records for diagnostics (`scaled_grads`).
    """

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not cuda_available():
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                stacklevel=2,
            )
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: float | None = None  # made by the first scale(), as in PyTorch
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: int | None = None
            self._per_optimizer_states: defaultdict = defaultdict(_refresh_per_optimizer_state)
            self._scaled_since_update = False  # See Note [Scaled gradients]
            self._unscaled_params: set = set()
            _live.add(self)

    def is_enabled(self) -> bool:
        """Matches `GradScaler.is_enabled`."""
        return self._enabled

    def _check_scale_growth_tracker(self, funcname: str) -> None:
        fix = (
            "This may indicate your script did not use scaler.scale(loss or outputs) earlier "
            "in the iteration."
        )
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)

    def scale(self, outputs):
        """`outputs` (a tensor or an iterable of tensors) times the scale, a float32 tensor:
        a bfloat16 loss is scaled in float32, as in PyTorch."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = float(np.float32(self._init_scale))
            self._growth_tracker = int(self._init_growth_tracker)
        self._scaled_since_update = True
        factor = None

        def apply_scale(value):
            nonlocal factor
            if isinstance(value, Tensor):
                if factor is None:
                    factor = Tensor._wrap(np.array(self._scale, np.float32))
                return value * factor
            if isinstance(value, abc.Iterable):
                scaled = map(apply_scale, value)
                return type(value)(scaled) if isinstance(value, (list, tuple)) else scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def unscale_(self, optimizer) -> None:
        """Divide `optimizer`'s gradients by the scale in place, noting any inf or NaN."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # PyTorch: the reciprocal in double, then rounded to float32
        inv_scale = np.float32(1.0 / np.float64(np.float32(self._scale)))
        state["found_inf_per_device"] = {"cpu": self._unscale_grads_(optimizer, inv_scale)}
        state["stage"] = OptState.UNSCALED

    def _unscale_grads_(self, optimizer, inv_scale) -> float:
        found_inf = 0.0
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    self._unscaled_params.add(id(param))
                    grad = param.grad
                    if grad is None:
                        continue
                    if grad._data.dtype == np.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    data = grad._data
                    if not np.isfinite(data.astype(np.float32, copy=False)).all():
                        found_inf = 1.0
                    # in float32, rounded once to the gradient's dtype
                    data[...] = (data.astype(np.float32) * inv_scale).astype(data.dtype)
                    grad._version_counter.bump("mul_")
        return found_inf

    def step(self, optimizer, *args, **kwargs):
        """`optimizer.step()` on unscaled gradients, skipped when any was inf or NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None
        if not sum(state["found_inf_per_device"].values()):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale=None) -> None:
        """Back off after an inf/NaN step, grow after `growth_interval` clean ones in a row."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("update")
        if new_scale is not None:
            self._scale = self._new_scale(new_scale)
        else:
            found_infs = [
                found
                for state in self._per_optimizer_states.values()
                for found in state["found_inf_per_device"].values()
            ]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            self._update_scale(sum(found_infs) > 0)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)
        self._scaled_since_update = False
        self._unscaled_params = set()

    def _new_scale(self, new_scale) -> float:
        if isinstance(new_scale, float):
            return float(np.float32(new_scale))
        reason = (
            "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
            "torch.FloatTensor with requires_grad=False."
        )
        if not isinstance(new_scale, Tensor) or new_scale.device.type != self._device:
            raise AssertionError(reason)
        if new_scale.numel() != 1 or new_scale.requires_grad:
            raise AssertionError(reason)
        return float(np.float32(new_scale.item()))

    def _update_scale(self, found_inf: bool) -> None:
        # PyTorch's _amp_update_scale_, in float32
        scale = np.float32(self._scale)
        if found_inf:
            self._scale = float(scale * np.float32(self._backoff_factor))
            self._growth_tracker = 0
            return
        successful = self._growth_tracker + 1
        if successful == self._growth_interval:
            grown = scale * np.float32(self._growth_factor)
            if np.isfinite(grown):
                self._scale = float(grown)
            self._growth_tracker = 0
        else:
            self._growth_tracker = successful

    def scaled_grads(self, params) -> list:
        """Those of `params` whose `.grad` still carries this scaler's scale: `scale()` ran
        since the last `update()` and no `unscale_`/`step` covered them since. A dyngrad
        addition for diagnostics (See Note [Scaled gradients])."""
        if not self._enabled or not self._scaled_since_update:
            return []
        if isinstance(params, Tensor):
            params = [params]
        return [p for p in params if p.grad is not None and id(p) not in self._unscaled_params]

    def get_scale(self) -> float:
        """Matches `GradScaler.get_scale`: the scale as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return float(self._init_scale if self._scale is None else self._scale)

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def state_dict(self) -> dict:
        """Matches `GradScaler.state_dict` (empty when disabled)."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict: dict) -> None:
        """Matches `GradScaler.load_state_dict`."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved "
                "from a disabled instance of GradScaler."
            )
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale = float(np.float32(self._init_scale))
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker = self._init_growth_tracker

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_per_optimizer_states", None)  # optimizer ids mean nothing elsewhere
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if self._enabled:
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)
            _live.add(self)
