"""`Gamma`: shape `concentration` and rate `rate`, reparameterized through `_standard_gamma`."""

from __future__ import annotations

from numbers import Number

from ..ops.creation.factories import as_tensor
from ..ops.creation.random_sampling import _standard_gamma as standard_gamma
from ..ops.elementwise.arithmetic import log
from ..ops.elementwise.binary_math import xlogy
from ..ops.elementwise.gamma import digamma, igamma, lgamma
from ..size import Size
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all, finfo

__all__ = ["Gamma"]


def _standard_gamma(concentration):
    return standard_gamma(concentration)


class Gamma(ExponentialFamily):
    """Matches `torch.distributions.Gamma(concentration, rate)`."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        numbers = isinstance(concentration, Number) and isinstance(rate, Number)
        batch_shape = Size() if numbers else self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        # G(concentration) / rate; G's gradient is the implicit one of _standard_gamma
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=float(finfo(value.dtype).tiny))  # not recorded in the graph
        return value

    def log_prob(self, value):
        value = as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (
            xlogy(self.concentration, self.rate)
            + xlogy(self.concentration - 1, value)
            - self.rate * value
            - lgamma(self.concentration)
        )

    def entropy(self):
        return (
            self.concentration
            - log(self.rate)
            + lgamma(self.concentration)
            + (1.0 - self.concentration) * digamma(self.concentration)
        )

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return lgamma(x + 1) + (x + 1) * log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return igamma(self.concentration, self.rate * value)
