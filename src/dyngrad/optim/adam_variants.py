"""`Adamax`, `NAdam` and `RAdam`: Adam with an infinity norm, Nesterov momentum, rectification."""

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

__all__ = ["Adamax", "NAdam", "RAdam"]


class _AdamVariant(Optimizer):
    """What the three share: argument checks, lazy state, one update per parameter."""

    _scalars: tuple = ()  # 0-d state tensors beside `step`, with their initial values

    def __init__(self, params, defaults: dict) -> None:
        check_nonnegative(lr=defaults["lr"], eps=defaults["eps"])
        for i, beta in enumerate(defaults["betas"]):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        check_nonnegative(weight_decay=defaults["weight_decay"])
        if "momentum_decay" in defaults:
            check_nonnegative(momentum_decay=defaults["momentum_decay"])
        super().__init__(params, defaults)
        check_unsupported(
            type(self).__name__,
            foreach=defaults["foreach"],
            differentiable=defaults["differentiable"],
            capturable=defaults["capturable"],
        )

    @no_grad_step
    def step(self, closure=None):
        """Performs a single optimization step (`closure` re-evaluates the loss)."""
        return update_each(self, closure)

    def _state(self, p: Tensor) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = step_counter()
            for key, value in self._scalars:
                state[key] = step_counter(value)
            for key in self._moments:
                state[key] = zeros_state(p)
        return state

    def _update(self, p: Tensor, group: dict) -> None:
        state = self._state(p)
        state["step"]._data += 1
        decoupled = group.get("decoupled_weight_decay", False)
        param, grad = param_and_grad(p, group, weight_decay=not decoupled)
        if decoupled and group["weight_decay"] != 0:
            param *= 1 - scalar(group["lr"]) * group["weight_decay"]
        moments = [real_view(state[key]._data) for key in self._moments]
        self._apply(param, grad, *moments, state=state, group=group)
        bump_state(state)
        p._version_counter.bump("add_")


class Adamax(_AdamVariant):
    """Matches `torch.optim.Adamax` (its single-tensor update rule)."""

    _moments = ("exp_avg", "exp_inf")

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    @staticmethod
    def _apply(param, grad, exp_avg, exp_inf, *, state, group) -> None:
        beta1, beta2 = group["betas"]
        lerp_(exp_avg, grad, 1 - beta1)
        exp_inf *= beta2
        norm = np.abs(grad)
        norm += group["eps"]
        np.maximum(exp_inf, norm, out=exp_inf)
        clr = scalar(group["lr"]) / (1 - beta1 ** state["step"].item())
        addcdiv_(param, exp_avg, exp_inf, -clr)


class NAdam(_AdamVariant):
    """Matches `torch.optim.NAdam` (its single-tensor update rule)."""

    _scalars = (("mu_product", 1.0),)
    _moments = ("exp_avg", "exp_avg_sq")

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @staticmethod
    def _apply(param, grad, exp_avg, exp_avg_sq, *, state, group) -> None:
        lr, (beta1, beta2) = scalar(group["lr"]), group["betas"]
        step, momentum_decay = state["step"].item(), group["momentum_decay"]
        bias_correction2 = 1 - beta2**step
        # the momentum cache mu_t and mu_{t+1}, in Python floats as PyTorch computes them
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product = state["mu_product"]._data
        mu_product *= mu  # rounded to the state's dtype, as PyTorch's tensor is
        lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq *= beta2
        exp_avg_sq += grad * (1 - beta2) * grad
        denom = exp_avg_sq / bias_correction2
        np.sqrt(denom, out=denom)
        mu_product_next = mu_product.item() * mu_next
        denom += group["eps"]
        addcdiv_(param, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product.item()))
        addcdiv_(param, exp_avg, denom, (-lr * mu_next) / (1.0 - mu_product_next))


class RAdam(_AdamVariant):
    """Matches `torch.optim.RAdam` (its single-tensor update rule)."""

    _moments = ("exp_avg", "exp_avg_sq")

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @staticmethod
    def _apply(param, grad, exp_avg, exp_avg_sq, *, state, group) -> None:
        lr, (beta1, beta2) = scalar(group["lr"]), group["betas"]
        step = state["step"].item()
        lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq *= beta2
        exp_avg_sq += grad * (1 - beta2) * grad
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        update = exp_avg / bias_correction1
        update *= lr
        # the length of the approximated simple moving average, and its limit
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            rect = (
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            ) ** 0.5
            # PyTorch divides a float by a tensor as reciprocal() * float
            adaptive_lr = np.sqrt(exp_avg_sq)
            adaptive_lr += group["eps"]
            np.reciprocal(adaptive_lr, out=adaptive_lr)
            adaptive_lr *= bias_correction2**0.5
            update *= adaptive_lr
            update *= rect
        param -= update
