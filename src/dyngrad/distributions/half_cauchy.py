"""`HalfCauchy`: |X| for X ~ Cauchy(0, `scale`)."""

from __future__ import annotations

import math

from ..ops.creation.factories import full
from .cauchy import Cauchy
from .folded import _HalfDistribution

__all__ = ["HalfCauchy"]


class HalfCauchy(_HalfDistribution):
    """Matches `torch.distributions.HalfCauchy(scale)`."""

    _base = Cauchy
    _log_prob_converts = True

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self):
        return self.base_dist.variance
