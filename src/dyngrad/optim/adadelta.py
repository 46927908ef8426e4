"""`Adadelta`: steps scaled by the ratio of running RMS of past updates to that of gradients."""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .optimizer import (
    Optimizer,
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

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Matches `torch.optim.Adadelta` (its single-tensor update rule).

    >>> opt = Adadelta(model.parameters(), lr=1.0)
    """

    def __init__(
        self,
        params,
        lr=1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_nonnegative(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonnegative(eps=eps, weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)
        check_unsupported(
            "Adadelta", foreach=foreach, differentiable=differentiable, capturable=capturable
        )

    @no_grad_step
    def step(self, closure=None):
        """Performs a single optimization step (`closure` re-evaluates the loss)."""
        return update_each(self, closure)

    def _state(self, p: Tensor) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = step_counter()
            state["square_avg"] = zeros_state(p)
            state["acc_delta"] = zeros_state(p)
        return state

    def _update(self, p: Tensor, group: dict) -> None:
        state = self._state(p)
        state["step"]._data += 1
        lr, rho, eps = scalar(group["lr"]), group["rho"], group["eps"]
        param, grad = param_and_grad(p, group)
        square_avg = real_view(state["square_avg"]._data)
        acc_delta = real_view(state["acc_delta"]._data)
        square_avg *= rho
        square_avg += grad * (1 - rho) * grad
        std = square_avg + eps
        np.sqrt(std, out=std)
        delta = acc_delta + eps
        np.sqrt(delta, out=delta)
        delta /= std
        delta *= grad
        acc_delta *= rho
        acc_delta += delta * (1 - rho) * delta
        param += delta * -lr
        bump_state(state)
        p._version_counter.bump("add_")
