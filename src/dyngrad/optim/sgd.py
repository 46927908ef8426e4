"""`SGD`: stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from .._tensor import Tensor
from ..runtime import threads
from .optimizer import (
    Optimizer,
    check_nonnegative,
    check_unsupported,
    closure_loss,
    no_grad_step,
    scalar,
)

__all__ = ["SGD"]


class SGD(Optimizer):
    """Matches `torch.optim.SGD` (its single-tensor update rule).

    >>> opt = SGD(model.parameters(), lr=0.1, momentum=0.9)
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay=0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_nonnegative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        check_unsupported("SGD", foreach=foreach, fused=fused, differentiable=differentiable)

    @no_grad_step
    def step(self, closure=None):
        """Performs a single optimization step (`closure` re-evaluates the loss)."""
        loss = closure_loss(closure)
        for group in self.param_groups:
            lr, momentum = scalar(group["lr"]), group["momentum"]
            weight_decay = scalar(group["weight_decay"])
            for p in group["params"]:
                if p._grad is None:
                    continue
                grad = -p._grad._data if group["maximize"] else p._grad._data
                if weight_decay != 0:
                    grad = grad + weight_decay * p._data
                if momentum == 0:
                    threads.foreach(lambda w, d: _descend(w, d, lr), p._data, grad)
                else:
                    self._momentum(p, grad, momentum, lr, group)
                p._version_counter.bump("add_")
        return loss

    def _momentum(self, p, grad, momentum, lr, group):
        state = self.state[p]
        buf = state.get("momentum_buffer")
        if buf is not None and not group["nesterov"]:  # the common case: one threaded pass
            dampening = group["dampening"]
            threads.foreach(
                lambda w, d, b: _momentum_step(w, d, b, momentum, dampening, lr),
                p._data,
                grad,
                buf._data,
            )
            buf._version_counter.value += 1  # see bump_state
            return
        if buf is None:  # the first step: the buffer starts as the gradient
            state["momentum_buffer"] = buf = Tensor._wrap(grad.copy())
        else:
            _accumulate(buf._data, grad, momentum, group["dampening"])
            buf._version_counter.value += 1
        step = grad + buf._data * momentum if group["nesterov"] else buf._data
        _descend(p._data, step, lr)


def _accumulate(buf, grad, momentum, dampening) -> None:
    buf *= momentum
    # grad * 1.0 is grad exactly: without dampening, skip a pass and a temporary
    buf += grad * (1 - dampening) if dampening != 0 else grad


def _descend(param, step, lr) -> None:
    param += step * -lr


def _momentum_step(param, grad, buf, momentum, dampening, lr) -> None:
    _accumulate(buf, grad, momentum, dampening)
    _descend(param, buf, lr)
