"""`Geometric`: the number of failures before the first success of Bernoulli(`probs`) trials."""

from __future__ import annotations

from ..graph.grad_mode import no_grad
from ..nn.functional_loss import binary_cross_entropy_with_logits
from ..ops.creation.factories import empty, zeros_like
from ..ops.elementwise.compare import where
from ..size import Size
from . import constraints
from .distribution import Distribution
from .utils import _BinaryProbsOrLogits, broadcast_all, finfo

__all__ = ["Geometric"]


class Geometric(_BinaryProbsOrLogits, Distribution):
    """Matches `torch.distributions.Geometric(probs=None, logits=None)`: support {0, 1, ...},
    P(k) = (1 - p)^k p; `probs` must be positive (checked after the unit interval)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        param = self._set_probs_or_logits(probs, logits)
        super().__init__(param.size(), validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                raise ValueError(
                    f"Expected parameter probs ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to be positive but found "
                    f"invalid values:\n{value.detach()[~valid]}"
                )

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = Size(batch_shape)
        self._expand_probs_or_logits(new, batch_shape)
        super(Geometric, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        # floor(log U / log(1 - p)) with U uniform on [tiny, 1), drawn by uniform_ as PyTorch
        shape = self._extended_shape(sample_shape)
        tiny = float(finfo(self.probs.dtype).tiny)
        with no_grad():
            u = empty(shape, dtype=self.probs.dtype).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # p = 1 scores k = 0 as log 1 (0 * log 0 would be nan)
        probs = where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return (
            binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
        )
