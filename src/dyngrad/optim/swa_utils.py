"""Weight averaging (`torch.optim.swa_utils`): `AveragedModel`, `SWALR`, `update_bn`."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from copy import deepcopy
from typing import Any

from .._tensor import Tensor
from ..graph.grad_mode import no_grad
from ..nn.modules.module import Module
from ..nn.modules.normalization import _BatchNorm
from ..ops.creation.factories import tensor
from ..runtime.dtypes import long
from .lr_scheduler.base import LRScheduler, per_group
from .optimizer import Optimizer

__all__ = [
    "AveragedModel",
    "update_bn",
    "SWALR",
    "get_ema_multi_avg_fn",
    "get_swa_multi_avg_fn",
    "get_ema_avg_fn",
    "get_swa_avg_fn",
]

# Note [Averaging numerics]
# PyTorch averages a list with `torch._foreach_lerp_`; on the CPU a foreach op runs the
# per-tensor `lerp_` one tensor at a time, which rounds once (a fused multiply-add, in float32
# for float16 tensors), as `Tensor.lerp_` does here. The SWA weight `1 / (n_averaged + 1)` is
# a float32 tensor, so even float64 tensors get its float32 value. On the devices with foreach
# kernels (cuda) the default average is that lerp too; elsewhere it is `get_swa_avg_fn`'s
# `avg + (p - avg) / (n + 1)`, as in PyTorch.
_FOREACH_DEVICES = ("cuda", "xpu")


def _lerp_(start: Tensor, end: Tensor, weight) -> None:
    """`start.lerp_(end, weight)`, as `_foreach_lerp_` on the CPU (Note [Averaging numerics])."""
    start.lerp_(end, weight)


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )


def _lerps(tensors: Sequence[Tensor]) -> bool:
    # lerp has float and complex kernels only; integer buffers take another formula
    return tensors[0].is_floating_point() or tensors[0].is_complex()


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """Matches `torch.optim.swa_utils.get_ema_multi_avg_fn`: in place, `ema.lerp_(p, 1 - decay)`."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _) -> None:
        if _lerps(ema_param_list):
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                _lerp_(p_ema, p_model, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """Matches `torch.optim.swa_utils.get_swa_multi_avg_fn`: in place, the running mean."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        if _lerps(averaged_param_list):
            weight = 1 / (num_averaged + 1)  # See Note [Averaging numerics]
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                _lerp_(p_avg, p_model, weight)
            return
        diffs = [p_model - p_avg for p_model, p_avg in zip(current_param_list, averaged_param_list)]
        for p_avg, diff in zip(averaged_param_list, diffs):
            if isinstance(num_averaged, Tensor):
                # integer addcdiv_ raises PyTorch's "Integer division with addcdiv" error
                p_avg.addcdiv_(diff, num_averaged + 1)
            else:
                p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """Matches `torch.optim.swa_utils.get_ema_avg_fn`: returns `decay * ema + (1 - decay) * p`."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable:
    """Matches `torch.optim.swa_utils.get_swa_avg_fn`: returns `avg + (p - avg) / (n + 1)`."""

    @no_grad()
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _group_by_device_and_dtype(averaged: list, current: list) -> dict:
    """{(device, dtype): (averaged tensors, current tensors)}, the groups last seen first."""
    groups: dict = {}
    for p_avg, p_model in zip(averaged, current):
        pair = groups.setdefault((p_avg.device, p_avg.dtype), ([], []))
        pair[0].append(p_avg)
        pair[1].append(p_model)
    # PyTorch groups in a C++ hash map, which yields a new group ahead of those before it:
    # this order is the map's for two groups (float parameters and the int64 batch counter)
    # and mostly for more. It decides which group an error stops at, and a user's
    # multi_avg_fn sees it.
    return dict(reversed(groups.items()))


class AveragedModel(Module):
    """Matches `torch.optim.swa_utils.AveragedModel`: a copy of `model` holding running averages.

    `update_parameters(model)` copies `model`'s parameters on its first call and averages them
    in afterwards (SWA by default, or `avg_fn` / `multi_avg_fn`); with `use_buffers` the
    buffers are averaged too, otherwise they are copied. Its state dict holds `n_averaged` and
    `module.<...>`.
    """

    def __init__(
        self,
        model: Module,
        device=None,
        avg_fn: Callable | None = None,
        multi_avg_fn: Callable | None = None,
        use_buffers: bool = False,
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """Runs the averaged copy of the module."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Average `model`'s current parameters (and buffers, with `use_buffers`) in."""
        if self.use_buffers:
            own = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            own, theirs = self.parameters(), model.parameters()
        averaged, current = [], []
        first = bool(self.n_averaged == 0)
        for p_avg, p_model in zip(own, theirs):
            p_model = p_model.detach().to(p_avg.device)
            averaged.append(p_avg.detach())
            current.append(p_model)
            if first:
                p_avg.detach().copy_(p_model)
        if self.n_averaged > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                self._average_groups(averaged, current)
            else:
                for p_avg, p_model in zip(averaged, current, strict=True):
                    n_averaged = self.n_averaged.to(p_avg.device)
                    p_avg.copy_(self.avg_fn(p_avg, p_model, n_averaged))
        if not self.use_buffers:
            # buffers not averaged follow the source model
            for b_avg, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_avg.detach().copy_(b_model.detach().to(b_avg.device))
        self.n_averaged += 1

    def _average_groups(self, averaged: list, current: list) -> None:
        for (device, _), (own, theirs) in _group_by_device_and_dtype(averaged, current).items():
            n_averaged = self.n_averaged.to(device)
            if self.multi_avg_fn:
                self.multi_avg_fn(own, theirs, n_averaged)
            elif device.type in _FOREACH_DEVICES:
                get_swa_multi_avg_fn()(own, theirs, n_averaged)
            else:
                avg_fn = get_swa_avg_fn()
                for p_avg, p_model in zip(own, theirs, strict=True):
                    p_avg.copy_(avg_fn(p_avg, p_model, n_averaged))


@no_grad()
def update_bn(loader: Iterable[Any], model: Module, device=None) -> None:
    """Matches `torch.optim.swa_utils.update_bn`: recompute BatchNorm running statistics.

    One pass over `loader` (batches are tensors, or lists/tuples whose first item is the
    input) with each BatchNorm's cumulative average (`momentum=None`); momenta and the
    train/eval mode are restored afterwards.
    """
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Matches `torch.optim.swa_utils.SWALR`: anneal each group's lr to its `swa_lr`, then hold.

    Over `anneal_epochs` epochs the lr moves from its value when annealing started to
    `swa_lr` along a cosine (`"cos"`) or a straight line (`"linear"`).
    """

    def __init__(
        self,
        optimizer: Optimizer,
        swa_lr,
        anneal_epochs: int = 10,
        anneal_strategy: str = "cos",
        last_epoch: int = -1,
    ) -> None:
        swa_lrs = [
            v.clone() if isinstance(v, Tensor) else v
            for v in per_group("swa_lr", optimizer, swa_lr)
        ]
        for value, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = value
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha: float):
        # the lr annealing started from, recovered from the current one
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        self._warn_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        groups = self.optimizer.param_groups
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        starts = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(groups, starts)]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        if anneal_strategy == "cos":
            self.anneal_func = self._cosine_anneal
        else:
            self.anneal_func = self._linear_anneal

    def state_dict(self) -> dict:
        """Every attribute but the optimizer and the anneal function."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
