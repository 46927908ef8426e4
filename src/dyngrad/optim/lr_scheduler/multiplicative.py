"""Schedules that scale each group's learning rate by a factor per epoch (step, cosine, ...)."""

from __future__ import annotations

import math
import types
from bisect import bisect_right
from collections import Counter

from .base import LRScheduler, group_values

__all__ = [
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "PolynomialLR",
    "CosineAnnealingLR",
]

# Note [Chainable schedules]
# As in PyTorch, `get_lr` computes the next lr from the group's current lr (so schedulers
# chain), while `_get_closed_form_lr` computes it from base_lr and the epoch (used by the
# deprecated `step(epoch)`). The two agree up to rounding; the chainable form is the one whose
# rounding matches PyTorch's sequences, so it is written the same way.


class _LambdaScheduler(LRScheduler):
    def __init__(self, optimizer, lr_lambda, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        groups = len(optimizer.param_groups)
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * groups
        else:
            if len(lr_lambda) != groups:
                raise ValueError(f"Expected {groups} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict:
        """Functions are not saved; callable objects save their `__dict__`."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
            for fn in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        state = dict(state_dict)
        lr_lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaScheduler):
    """Matches `torch.optim.lr_scheduler.LambdaLR`: `lr = base_lr * lr_lambda(epoch)`."""

    def get_lr(self) -> list:
        self._warn_outside_step()
        return [
            base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)
        ]


class MultiplicativeLR(_LambdaScheduler):
    """Matches `torch.optim.lr_scheduler.MultiplicativeLR`: `lr *= lr_lambda(epoch)`."""

    def __init__(self, optimizer, lr_lambda, last_epoch: int = -1) -> None:
        for fn in lr_lambda if isinstance(lr_lambda, (list, tuple)) else [lr_lambda]:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, lr_lambda, last_epoch)

    def get_lr(self) -> list:
        self._warn_outside_step()
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        return [
            g["lr"] * fn(self.last_epoch)
            for fn, g in zip(self.lr_lambdas, self.optimizer.param_groups)
        ]


class StepLR(LRScheduler):
    """Matches `torch.optim.lr_scheduler.StepLR`: `lr *= gamma` every `step_size` epochs."""

    def __init__(self, optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return group_values(self.optimizer, "lr")
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Matches `torch.optim.lr_scheduler.MultiStepLR`: `lr *= gamma` at each milestone."""

    def __init__(self, optimizer, milestones, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return group_values(self.optimizer, "lr")
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [g["lr"] * factor for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        milestones = sorted(self.milestones.elements())
        return [b * self.gamma ** bisect_right(milestones, self.last_epoch) for b in self.base_lrs]


class ConstantLR(LRScheduler):
    """Matches `torch.optim.lr_scheduler.ConstantLR`: `factor * lr` until `total_iters`."""

    def __init__(
        self, optimizer, factor: float = 1.0 / 3, total_iters: int = 5, last_epoch: int = -1
    ) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [g["lr"] * self.factor for g in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return group_values(self.optimizer, "lr")
        return [g["lr"] * (1.0 / self.factor) for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        on = self.last_epoch >= self.total_iters
        return [b * (self.factor + on * (1 - self.factor)) for b in self.base_lrs]


class LinearLR(LRScheduler):
    """Matches `torch.optim.lr_scheduler.LinearLR`: the factor goes linearly start -> end."""

    def __init__(
        self,
        optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and "
                "less or equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [g["lr"] * self.start_factor for g in groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return group_values(self.optimizer, "lr")
        delta = self.end_factor - self.start_factor
        factor = 1.0 + delta / (
            self.total_iters * self.start_factor + (self.last_epoch - 1) * delta
        )
        return [g["lr"] * factor for g in groups]

    def _get_closed_form_lr(self) -> list:
        delta = self.end_factor - self.start_factor
        done = min(self.total_iters, self.last_epoch)
        return [b * (self.start_factor + delta * done / self.total_iters) for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Matches `torch.optim.lr_scheduler.ExponentialLR`: `lr *= gamma` every epoch."""

    def __init__(self, optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._warn_outside_step()
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [b * self.gamma**self.last_epoch for b in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Matches `torch.optim.lr_scheduler.PolynomialLR`: decay to 0 over `total_iters`."""

    def __init__(
        self, optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1
    ) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._warn_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return group_values(self.optimizer, "lr")
        factor = (
            (1.0 - self.last_epoch / self.total_iters)
            / (1.0 - (self.last_epoch - 1) / self.total_iters)
        ) ** self.power
        return [g["lr"] * factor for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        left = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [b * left**self.power for b in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Matches `torch.optim.lr_scheduler.CosineAnnealingLR` (the chainable SGDR form)."""

    def __init__(
        self,
        optimizer,
        T_max: int,  # noqa: N803 - PyTorch's name
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._warn_outside_step()
        groups, eta_min, t_max = self.optimizer.param_groups, self.eta_min, self.T_max
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:
            return [
                eta_min + (b - eta_min) * (1 + math.cos(self.last_epoch * math.pi / t_max)) / 2
                for b in self.base_lrs
            ]
        if (self.last_epoch - 1 - t_max) % (2 * t_max) == 0:
            return [
                g["lr"] + (b - eta_min) * (1 - math.cos(math.pi / t_max)) / 2
                for b, g in zip(self.base_lrs, groups)
            ]
        ratio = (1 + math.cos(math.pi * self.last_epoch / t_max)) / (
            1 + math.cos(math.pi * (self.last_epoch - 1) / t_max)
        )
        return [ratio * (g["lr"] - eta_min) + eta_min for g in groups]

    def _get_closed_form_lr(self) -> list:
        cos = 1 + math.cos(math.pi * self.last_epoch / self.T_max)
        return [self.eta_min + (b - self.eta_min) * cos / 2 for b in self.base_lrs]
