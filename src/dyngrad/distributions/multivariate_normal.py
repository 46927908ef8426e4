"""`MultivariateNormal`: the Gaussian with mean `loc` and a covariance given by its matrix, its
precision or its Cholesky factor `scale_tril`."""

from __future__ import annotations

import math

from ..ops.creation.ranges import eye
from ..ops.linalg.cholesky import cholesky_inverse, linalg_cholesky, solve_triangular
from ..ops.linalg.products import matmul
from ..ops.shape.grids import broadcast_shapes
from ..ops.shape.rearrange import flip
from ..ops.shape.reshaping import transpose
from ..size import Size
from . import constraints
from .distribution import Distribution
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Matrix-vector products over broadcasting batches."""
    return matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """x^T (L L^T)^-1 x = |L^-1 x|^2 over broadcasting batches of L and x."""
    n = bx.size(-1)
    if bL.dim() == 2:  # one factor: one solve for every x at once, as columns
        flat = bx.reshape(-1, n).T
        solved = solve_triangular(bL, flat, upper=False)
        return solved.pow(2).sum(-2).reshape(bx.shape[:-1])
    solved = solve_triangular(bL, bx.unsqueeze(-1), upper=False)
    return solved.squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(P):
    # with J the flip matrix, chol(J P J) = J L^-T J for P^-1 = L L^T: L without inverting P
    Lf = linalg_cholesky(flip(P, (-2, -1)))
    L_inv = transpose(flip(Lf, (-2, -1)), -2, -1)
    identity = eye(P.shape[-1], dtype=P.dtype)
    return solve_triangular(L_inv, identity, upper=False)


def _half_log_det(scale_tril):
    return scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


class MultivariateNormal(Distribution):
    """Matches `torch.distributions.MultivariateNormal(loc, covariance_matrix=None,
    precision_matrix=None, scale_tril=None)`: exactly one of the three; every computation
    runs on the Cholesky factor."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc,
        covariance_matrix=None,
        precision_matrix=None,
        scale_tril=None,
        validate_args=None,
    ):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [
            (n, m)
            for n, m in (
                ("scale_tril", scale_tril),
                ("covariance_matrix", covariance_matrix),
                ("precision_matrix", precision_matrix),
            )
            if m is not None
        ]
        if len(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or "
                "scale_tril may be specified."
            )
        name, matrix = given[0]
        if matrix.dim() < 2:
            text = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(
                f"{text} must be at least two-dimensional, with optional leading batch dimensions"
            )
        batch_shape = broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = linalg_cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(batch_shape + self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        low = self._unbroadcasted_scale_tril
        return matmul(low, low.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        inverse = cholesky_inverse(self._unbroadcasted_scale_tril)
        return inverse.expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        variance = self._unbroadcasted_scale_tril.pow(2).sum(-1)
        return variance.expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=()):
        # loc + L eps with eps ~ N(0, I)
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = _half_log_det(self._unbroadcasted_scale_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = _half_log_det(self._unbroadcasted_scale_tril)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)
