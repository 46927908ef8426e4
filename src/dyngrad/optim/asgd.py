"""`ASGD`: stochastic gradient descent with a decaying step and a running average of iterates."""

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

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Matches `torch.optim.ASGD` (its single-tensor update rule).

    `state['ax']` holds the averaged parameters once `step` passes `t0`.
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_nonnegative(lr=lr, weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)
        check_unsupported(
            "ASGD", foreach=foreach, differentiable=differentiable, capturable=capturable
        )

    @no_grad_step
    def step(self, closure=None):
        """Performs a single optimization step (`closure` re-evaluates the loss)."""
        return update_each(self, closure)

    def _state(self, p: Tensor, group: dict) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = step_counter()
            state["eta"] = step_counter(scalar(group["lr"]))
            state["mu"] = step_counter(1.0)
            state["ax"] = zeros_state(p)
        return state

    def _update(self, p: Tensor, group: dict) -> None:
        state = self._state(p, group)
        lr, lambd = scalar(group["lr"]), group["lambd"]
        step_t, eta, mu = state["step"], state["eta"], state["mu"]
        step_t._data += 1
        param, grad = param_and_grad(p, group)
        eta_value = eta.item()
        param *= 1 - lambd * eta_value
        param += grad * -eta_value
        ax = real_view(state["ax"]._data)
        if mu.item() != 1:
            diff = param - ax
            diff *= mu._data
            ax += diff
        else:
            np.copyto(ax, param)
        step = step_t.item()
        # PyTorch computes both in Python floats, then rounds them into the 0-d state tensors
        eta._data[...] = lr / ((1 + lambd * lr * step) ** group["alpha"])
        mu._data[...] = 1 / max(1, step - group["t0"])
        bump_state(state)
        p._version_counter.bump("add_")
