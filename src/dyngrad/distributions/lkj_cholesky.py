"""`LKJCholesky`: the LKJ distribution over Cholesky factors of D x D correlation matrices,
with density proportional to det(L L^T)^(concentration - 1)."""

from __future__ import annotations

import math

from ..ops.creation.random import randn
from ..ops.creation.ranges import arange
from ..ops.elementwise.gamma import mvlgamma
from ..ops.shape.joining import cat
from ..size import Size
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all, finfo

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Matches `torch.distributions.LKJCholesky(dim, concentration=1.0)`.

    Draws by the onion method: row i's squared length off the diagonal is Beta distributed, its
    direction uniform on the sphere (normal draws normalized). The Beta draws are Dirichlet
    draws, which dyngrad does not make with PyTorch's algorithm: seeded draws differ.
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}."
            )
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = Size((dim, dim))
        # the Beta of row i: (i/2, concentration + (D - 2 - i)/2), the first row a dummy
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = cat([offset.new_zeros((1,)), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        shape = self._extended_shape(sample_shape)
        u_normal = randn(shape, dtype=y.dtype).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        u_hypersphere[..., 0, :].fill_(0.0)  # the first row is (1, 0, ..., 0)
        w = y.sqrt() * u_hypersphere
        tiny = float(finfo(w.dtype).tiny)
        diag_elems = (1 - (w**2).sum(dim=-1)).clamp(min=tiny).sqrt()
        return w + diag_elems.diag_embed()

    def log_prob(self, value):
        # PyTorch's normalizer (Lewandowski, Kurowicka & Joe 2009, as in NumPyro)
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = (order * diag_elems.log()).sum(dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = alpha.lgamma() * dm1
        numerator = mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnormalized_log_pdf - (pi_constant + numerator - denominator)
