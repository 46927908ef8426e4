"""`Rprop`: resilient backpropagation, a per-element step size grown or shrunk by sign agreement."""

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

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Matches `torch.optim.Rprop` (its single-tensor update rule)."""

    def __init__(
        self,
        params,
        lr=1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_nonnegative(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)
        check_unsupported(
            "Rprop", foreach=foreach, differentiable=differentiable, capturable=capturable
        )

    @no_grad_step
    def step(self, closure=None):
        """Performs a single optimization step (`closure` re-evaluates the loss)."""
        return update_each(self, closure)

    def _state(self, p: Tensor, group: dict) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = step_counter()
            state["prev"] = zeros_state(p)
            lr = scalar(group["lr"])
            # a complex element is two independent reals: both parts start at lr
            init = complex(lr, lr) if p.is_complex() else lr
            state["step_size"] = Tensor._wrap(np.full_like(p._grad._data, init))
        return state

    def _update(self, p: Tensor, group: dict) -> None:
        state = self._state(p, group)
        state["step"]._data += 1
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        _, grad = param_and_grad(p, group, weight_decay=False)
        prev = real_view(state["prev"]._data)
        step_size = real_view(state["step_size"]._data)
        sign = grad * prev
        np.sign(sign, out=sign)
        # the gradient's sign flipped: shrink the step and skip this element's move
        flipped = sign < 0
        sign[sign > 0] = etaplus
        sign[flipped] = etaminus
        sign[sign == 0] = 1
        step_size *= sign
        np.clip(step_size, step_size_min, step_size_max, out=step_size)
        grad = np.where(flipped, 0, grad)
        param = real_view(p._data)
        param -= np.sign(grad) * step_size
        np.copyto(prev, grad)
        bump_state(state)
        p._version_counter.bump("addcmul_")
