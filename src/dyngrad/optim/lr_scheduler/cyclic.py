"""The cyclical schedules: `CyclicLR` (triangular waves) and `CosineAnnealingWarmRestarts`."""

from __future__ import annotations

import functools
import math
import types

from ..optimizer import Optimizer
from .base import LRScheduler, group_values, per_group, set_group_value

__all__ = ["CosineAnnealingWarmRestarts", "CyclicLR"]


def _copies(name: str, optimizer: Optimizer, value) -> list:
    # one value per group, tensors cloned so that the schedule never aliases the caller's
    return [v.clone() if hasattr(v, "clone") else v for v in per_group(name, optimizer, value)]


class CyclicLR(LRScheduler):
    """Matches `torch.optim.lr_scheduler.CyclicLR`: the lr goes from `base_lr` up to `max_lr`
    in `step_size_up` steps and back in `step_size_down`, the wave scaled per cycle (modes
    `triangular`, `triangular2`, `exp_range`, or `scale_fn`); momentum (or beta1) cycles
    inversely when `cycle_momentum`. Step it after every batch."""

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr,
        max_lr,
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn=None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum=0.8,
        max_momentum=0.9,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _copies("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                set_group_value(group, "lr", lr)
        self.max_lrs = _copies("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self._init_momentum(optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_momentum(self, optimizer, base_momentum, max_momentum, last_epoch) -> None:
        if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
            raise ValueError(
                "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
            )
        self.use_beta1 = "betas" in optimizer.defaults
        self.base_momentums = _copies("base_momentum", optimizer, base_momentum)
        self.max_momentums = _copies("max_momentum", optimizer, max_momentum)
        if last_epoch == -1:
            for top, base, group in zip(
                self.max_momentums, self.base_momentums, optimizer.param_groups
            ):
                self._set_momentum(group, top)
                group["max_momentum"] = top
                group["base_momentum"] = base

    def _set_momentum(self, group: dict, value) -> None:
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def _init_scale_fn(self) -> None:
        # the built-in modes fix their scale mode; a custom scale_fn keeps the one given
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = _triangular_scale
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = _triangular2_scale
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = functools.partial(_exp_range_scale, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x) -> float:
        """The wave's height factor at cycle (or iteration) `x`."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    def get_lr(self) -> list:
        self._warn_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle  # position within the cycle
        if x <= self.step_ratio:
            rise = x / self.step_ratio
        else:
            rise = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base + (top - base) * rise * scale for base, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, base, top in zip(
                self.optimizer.param_groups, self.base_momentums, self.max_momentums
            ):
                self._set_momentum(group, top - (top - base) * rise * scale)
        return lrs

    def state_dict(self) -> dict:
        """As the base's, without the built-in scale function (it is rebuilt from `mode`); a
        custom `scale_fn` is kept only as its `__dict__` when it is a callable object."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


def _triangular_scale(x: float) -> float:
    return 1.0


def _triangular2_scale(x: float) -> float:
    return 1 / 2.0 ** (x - 1)


def _exp_range_scale(gamma: float, x: float) -> float:
    return gamma**x


class CosineAnnealingWarmRestarts(LRScheduler):
    """Matches `torch.optim.lr_scheduler.CosineAnnealingWarmRestarts` (SGDR): cosine annealing
    from each group's initial lr to `eta_min` over `T_i` epochs, restarting with `T_i` grown
    `T_mult` times. `step(epoch)` takes fractional epochs (call it per batch)."""

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,  # noqa: N803 - PyTorch's names
        T_mult: int = 1,  # noqa: N803
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._warn_outside_step()
        cos = 1 + math.cos(math.pi * self.T_cur / self.T_i)
        return [self.eta_min + (base - self.eta_min) * cos / 2 for base in self.base_lrs]

    def step(self, epoch=None) -> None:
        """Advance one epoch, or go to `epoch` (fractional: a batch within an epoch). Unlike
        the other schedulers, PyTorch's neither counts these calls nor warns about them."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            self._restart_at(epoch)
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            set_group_value(group, "lr", lr)
        self._last_lr = group_values(self.optimizer, "lr")

    def _restart_at(self, epoch) -> None:
        if epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        if epoch < self.T_0:
            self.T_i = self.T_0
            self.T_cur = epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:
            # restart n begins at T_0 (T_mult^n - 1) / (T_mult - 1): solve for the last one
            n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult**n
