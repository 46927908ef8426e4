"""`Laplace`: the double exponential with location `loc` and scale `scale`."""

from __future__ import annotations

from numbers import Number

from ..ops.creation.factories import empty
from ..ops.elementwise.arithmetic import log
from ..ops.elementwise.unary import expm1, log1p
from ..size import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, finfo

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Matches `torch.distributions.Laplace(loc, scale)`."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        numbers = isinstance(loc, Number) and isinstance(scale, Number)
        super().__init__(Size() if numbers else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Laplace, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Laplace, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2**0.5) * self.scale

    def rsample(self, sample_shape=()):
        # the inverse CDF at u ~ U(eps - 1, 1), which keeps log1p(-|u|) finite
        shape = self._extended_shape(sample_shape)
        eps = float(finfo(self.loc.dtype).eps)
        u = empty(shape, dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        return 0.5 - 0.5 * diff.sign() * expm1(-diff.abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * log1p(-2 * term.abs())

    def entropy(self):
        return 1 + log(2 * self.scale)
