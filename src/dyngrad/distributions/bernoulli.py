"""`Bernoulli`: 1 with probability `probs` (or sigmoid of `logits`), else 0."""

from __future__ import annotations

import math

from ..graph.grad_mode import no_grad
from ..nn.functional_loss import binary_cross_entropy_with_logits
from ..ops.creation.random_fill import bernoulli
from ..ops.creation.ranges import arange
from ..ops.elementwise.arithmetic import exp
from ..ops.elementwise.binary_math import logit
from ..ops.elementwise.unary import log1p
from ..size import Size
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _BinaryProbsOrLogits, broadcast_all

__all__ = ["Bernoulli"]


class Bernoulli(_BinaryProbsOrLogits, ExponentialFamily):
    """Matches `torch.distributions.Bernoulli(probs=None, logits=None)` (exactly one of them)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        param = self._set_probs_or_logits(probs, logits)
        super().__init__(param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = Size(batch_shape)
        self._expand_probs_or_logits(new, batch_shape)
        super(Bernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = math.nan
        return mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return (logit(self.probs),)

    def _log_normalizer(self, x):
        return log1p(exp(x))
