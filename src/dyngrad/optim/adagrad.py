"""`Adagrad`: per-coordinate steps scaled by the root of the summed squared gradients."""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
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
)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Matches `torch.optim.Adagrad` (its single-tensor update rule).

    Unlike the other optimizers, its state (`step`, `sum`) exists from construction on.
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_nonnegative(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        check_unsupported("Adagrad", foreach=foreach, fused=fused, differentiable=differentiable)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = step_counter()
                init = initial_accumulator_value
                if p.is_complex():
                    init = complex(init, init)
                state["sum"] = Tensor._wrap(np.full_like(p._data, init))

    @no_grad_step
    def step(self, closure=None):
        """Performs a single optimization step (`closure` re-evaluates the loss)."""
        return update_each(self, closure)

    def _update(self, p: Tensor, group: dict) -> None:
        state = self.state[p]
        step_t = state["step"]
        step_t._data += 1
        step = step_t.item()
        param, grad = param_and_grad(p, group)
        clr = scalar(group["lr"]) / (1 + (step - 1) * group["lr_decay"])
        state_sum = real_view(state["sum"]._data)
        state_sum += grad * grad
        std = np.sqrt(state_sum)
        std += group["eps"]
        addcdiv_(param, grad, std, -clr)
        bump_state(state)
        p._version_counter.bump("addcdiv_")
