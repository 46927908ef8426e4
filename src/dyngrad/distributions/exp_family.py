"""`ExponentialFamily`: entropy from the log normalizer, by automatic differentiation."""

from __future__ import annotations

from ..autograd.engine import grad as _grad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Matches `torch.distributions.ExponentialFamily`: densities
    p(x; theta) = exp(<t(x), theta> - F(theta) + k(x)).

    The entropy is the Bregman divergence of the log normalizer F:
    H = F(theta) - <theta, grad F(theta)> - E[k(x)].
    """

    @property
    def _natural_params(self) -> tuple:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        raise NotImplementedError

    def entropy(self):
        result = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        log_normalizer = self._log_normalizer(*params)
        grads = _grad(log_normalizer.sum(), params, create_graph=True)
        result += log_normalizer
        for param, grad in zip(params, grads):
            result -= (param * grad).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
