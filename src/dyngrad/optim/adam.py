"""`Adam` and `AdamW`: adaptive moment estimation, with coupled or decoupled weight decay."""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..runtime import threads
from .flat_state import flat_state
from .optimizer import (
    Optimizer,
    addcdiv_,
    bump_state,
    check_nonnegative,
    check_unsupported,
    closure_loss,
    no_grad_step,
    param_and_grad,
    real_view,
    scalar,
    step_counter,
    zeros_state,
)

__all__ = ["Adam", "AdamW", "lerp_"]


class Adam(Optimizer):
    """Matches `torch.optim.Adam` (its single-tensor update rule).

    >>> opt = Adam(model.parameters(), lr=1e-3)
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        _check_arguments(lr, betas, eps, weight_decay)
        defaults = {
            "lr": lr,
            "betas": tuple(scalar(b) for b in betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)
        check_unsupported(
            type(self).__name__,
            foreach=foreach,
            fused=fused,
            differentiable=differentiable,
            capturable=capturable,
        )

    @no_grad_step
    def step(self, closure=None):
        """Performs a single optimization step (`closure` re-evaluates the loss)."""
        loss = closure_loss(closure)
        for group in self.param_groups:
            amsgrad = group["amsgrad"]
            flat = flat_state(self, group, _MOMENTS[amsgrad], lambda p: self._state(p, amsgrad))
            if flat is not None:  # See Note [Flat updates]
                self._update_flat(flat, group)
            for p in group["params"] if flat is None else flat.rest:
                if p._grad is not None:
                    self._update(p, group)
        return loss

    def _state(self, p: Tensor, amsgrad: bool) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = step_counter()
            state["exp_avg"] = zeros_state(p)
            state["exp_avg_sq"] = zeros_state(p)
            if amsgrad:
                state["max_exp_avg_sq"] = zeros_state(p)
        return state

    def _update(self, p: Tensor, group: dict) -> None:
        state = self._state(p, group["amsgrad"])
        step_t = state["step"]
        step_t._data += 1
        decoupled = group["decoupled_weight_decay"]
        param, grad = param_and_grad(p, group, weight_decay=not decoupled)
        arrays = [
            param,
            grad,
            real_view(state["exp_avg"]._data),
            real_view(state["exp_avg_sq"]._data),
        ]
        if group["amsgrad"]:
            arrays.append(real_view(state["max_exp_avg_sq"]._data))
        decay, update = _rule(group, step_t.item())

        def step(param, grad, *moments):
            if decay is not None:
                param *= decay
            addcdiv_(param, *update(grad, *moments))

        threads.foreach(step, *arrays)  # elementwise: See Note [Intra-op threads]
        bump_state(state)
        p._version_counter.bump("addcdiv_")

    def _update_flat(self, flat, group: dict) -> None:
        # every small parameter at once, bitwise the loop above: See Note [Flat updates]
        flat.steps += 1
        grad = flat.gather_grads()
        if group["maximize"]:
            np.negative(grad, out=grad)
        if group["weight_decay"] != 0 and not group["decoupled_weight_decay"]:
            grad = grad + group["weight_decay"] * flat.gather_params()
        decay, update = _rule(group, flat.steps[0].item())
        numerator, denom, value = update(grad, *flat.flats)
        np.multiply(numerator, value, out=flat.update)
        flat.update /= denom
        for p, piece in zip(flat.params, flat.update_views):
            if decay is not None:
                p._data *= decay
            p._data += piece
            p._version_counter.bump("addcdiv_")
        for state in flat.states:
            bump_state(state)


class AdamW(Adam):
    """Matches `torch.optim.AdamW`: Adam with decoupled weight decay (default 1e-2)."""

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


_MOMENTS = {False: ("exp_avg", "exp_avg_sq"), True: ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")}


def _rule(group: dict, step: float) -> tuple:
    """(the decoupled weight decay's factor or None, the moments' update for this step).

    The update takes the gradient and the moment arrays, writes the moments in place and
    returns (numerator, denominator, value) of the parameter's `addcdiv_`.
    """
    lr, (beta1, beta2) = scalar(group["lr"]), group["betas"]
    weight_decay, eps = group["weight_decay"], group["eps"]
    decoupled = group["decoupled_weight_decay"]
    decay = 1 - lr * weight_decay if decoupled and weight_decay != 0 else None
    step_size = lr / (1 - beta1**step)
    bias_correction2_sqrt = (1 - beta2**step) ** 0.5

    def update(grad, exp_avg, exp_avg_sq, max_sq=None):
        lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq *= beta2
        exp_avg_sq += grad * (1 - beta2) * grad
        if max_sq is not None:
            np.maximum(max_sq, exp_avg_sq, out=max_sq)
            exp_avg_sq = max_sq
        denom = np.sqrt(exp_avg_sq)
        denom /= bias_correction2_sqrt
        denom += eps
        return exp_avg, denom, -step_size

    return decay, update


def _check_arguments(lr, betas, eps, weight_decay) -> None:
    check_nonnegative(lr=lr, eps=eps)
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
    check_nonnegative(weight_decay=weight_decay)
    if not (all(isinstance(b, float) for b in betas) or all(isinstance(b, Tensor) for b in betas)):
        raise ValueError("betas must be either both floats or both Tensors")


def lerp_(start: np.ndarray, end: np.ndarray, weight: float) -> None:
    """`start.lerp_(end, weight)` in place, with PyTorch's two-sided formula for accuracy.

    PyTorch's kernel fuses the multiply-add (one rounding, as `torch.lerp` here does); the
    optimizers round the product apart, 1 ulp off in about one element of seven: an exact
    float32 fma costs four to five times these passes in NumPy, and the products before
    (BLAS against MKL) already differ in the last bits."""
    if abs(weight) < 0.5:
        diff = end - start
        diff *= weight
        start += diff
    else:
        diff = end - start
        diff *= 1 - weight
        np.subtract(end, diff, out=start)
