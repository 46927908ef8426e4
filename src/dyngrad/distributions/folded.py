"""`_HalfDistribution`: |X| for X a location-0 distribution symmetric about 0 with a `scale`
(HalfNormal, HalfCauchy): every density, probability and entropy is the base one folded."""

from __future__ import annotations

import math

from ..ops.creation.factories import as_tensor, zeros_like
from ..ops.elementwise.compare import where
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__: list = []


class _HalfDistribution(TransformedDistribution):
    """The shared half of HalfNormal and HalfCauchy; a subclass names its `_base` class."""

    _base = None  # the symmetric distribution, built as _base(0, scale)
    _log_prob_converts = False  # whether log_prob takes a number (as PyTorch's HalfCauchy)
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base = self._base(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        if self._log_prob_converts:
            value = as_tensor(value, dtype=self.base_dist.scale.dtype)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
