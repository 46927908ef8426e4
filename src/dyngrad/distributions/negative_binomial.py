"""`NegativeBinomial`: failures before `total_count` successes of Bernoulli(1 - `probs`)
trials (successes counted with probability `probs`, as PyTorch's)."""

from __future__ import annotations

from ..graph.grad_mode import no_grad
from ..nn.functional import logsigmoid
from ..ops.creation.random_sampling import poisson
from ..size import Size
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import _BinaryProbsOrLogits, lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_BinaryProbsOrLogits, Distribution):
    """Matches `torch.distributions.NegativeBinomial(total_count, probs=None, logits=None)`.

    Sampling is a Gamma-Poisson mixture as PyTorch's; neither dyngrad's gamma nor its poisson
    sampler follows PyTorch's algorithm, so seeded draws differ.
    """

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        param = self._set_probs_or_logits(probs, logits, total_count)
        super().__init__(param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        self._expand_probs_or_logits(new, batch_shape)
        super(NegativeBinomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / (-self.logits).sigmoid()

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @lazy_property
    def _gamma(self):
        return Gamma(self.total_count, (-self.logits).exp(), validate_args=False)

    def sample(self, sample_shape=()):
        with no_grad():
            return poisson(self._gamma.sample(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        unnormalized = self.total_count * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        normalization = (
            -(self.total_count + value).lgamma()
            + (1.0 + value).lgamma()
            + self.total_count.lgamma()
        )
        # total_count + value = 0 is the certain event
        normalization = normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return unnormalized - normalization
