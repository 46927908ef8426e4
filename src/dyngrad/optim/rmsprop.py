"""`RMSprop`: gradient scaled by a running root-mean-square, optionally centered."""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .adam import lerp_
from .optimizer import (
    Optimizer,
    addcdiv_,
    bump_state,
    check_nonnegative,
    check_unsupported,
    no_grad_step,
    param_and_grad,
    real_view,
    scalar,
    step_counter,
    update_each,
    zeros_state,
)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Matches `torch.optim.RMSprop` (its single-tensor update rule)."""

    def __init__(
        self,
        params,
        lr=1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_nonnegative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)
        check_unsupported(
            "RMSprop", foreach=foreach, differentiable=differentiable, capturable=capturable
        )

    @no_grad_step
    def step(self, closure=None):
        """Performs a single optimization step (`closure` re-evaluates the loss)."""
        return update_each(self, closure)

    def _state(self, p: Tensor, group: dict) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = step_counter()
            state["square_avg"] = zeros_state(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_state(p)
            if group["centered"]:
                state["grad_avg"] = zeros_state(p)
        return state

    def _update(self, p: Tensor, group: dict) -> None:
        state = self._state(p, group)
        lr, alpha, momentum = scalar(group["lr"]), group["alpha"], group["momentum"]
        state["step"]._data += 1
        param, grad = param_and_grad(p, group)
        square_avg = real_view(state["square_avg"]._data)
        square_avg *= alpha
        square_avg += grad * (1 - alpha) * grad
        if group["centered"]:
            grad_avg = real_view(state["grad_avg"]._data)
            lerp_(grad_avg, grad, 1 - alpha)
            avg = square_avg + grad_avg * -1 * grad_avg
            np.sqrt(avg, out=avg)
        else:
            avg = np.sqrt(square_avg)
        avg += group["eps"]
        if momentum > 0:
            buf = real_view(state["momentum_buffer"]._data)
            buf *= momentum
            buf += grad / avg
            param += buf * -lr
        else:
            addcdiv_(param, grad, avg, -lr)
        bump_state(state)
        p._version_counter.bump("addcdiv_")
