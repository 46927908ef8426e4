"""Transforms that arrange other transforms: over slices (`CatTransform`, `StackTransform`),
over event dims (`IndependentTransform`), a reshape, and a distribution's CDF."""

from __future__ import annotations

import functools
import operator

from ..ops.shape.joining import cat, stack
from ..size import Size
from . import constraints
from .transform_chain import Transform
from .utils import _sum_rightmost

__all__ = [
    "CatTransform",
    "CumulativeDistributionTransform",
    "IndependentTransform",
    "ReshapeTransform",
    "StackTransform",
]


def _check_dim(dim: int, value, name: str, size: int, what: str) -> None:
    # PyTorch asserts these (AssertionError), with these messages: `name` is "x" or "y",
    # called "tensor" in the range message of a call (not of log_abs_det_jacobian)
    shown, name = name.split(":") if ":" in name else (name, name)
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for {shown} with {value.dim()} dimensions")
    if value.size(dim) != size:
        raise AssertionError(f"{name}.size({dim}) = {value.size(dim)} must equal {what}")


class IndependentTransform(Transform):
    """Matches `IndependentTransform(base_transform, reinterpreted_batch_ndims)`: the base
    transform, with that many more rightmost dims summed into its log |det J|."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(
            self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size
        )

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        result = self.base_transform.log_abs_det_jacobian(x, y)
        return _sum_rightmost(result, self.reinterpreted_batch_ndims)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Matches `ReshapeTransform(in_shape, out_shape)`: the rightmost dims reshaped (volume
    preserving: log |det J| is 0)."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = Size(in_shape)
        self.out_shape = Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch_shape = x.shape[: x.dim() - len(self.in_shape)]
        return x.reshape(batch_shape + self.out_shape)

    def _inverse(self, y):
        batch_shape = y.shape[: y.dim() - len(self.out_shape)]
        return y.reshape(batch_shape + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(x.shape[: x.dim() - len(self.in_shape)])

    def forward_shape(self, shape):
        return _reshaped(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return _reshaped(shape, self.out_shape, self.in_shape)


def _reshaped(shape, source, target):
    if len(shape) < len(source):
        raise ValueError("Too few dimensions on input")
    cut = len(shape) - len(source)
    if shape[cut:] != source:
        raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {source}")
    return shape[:cut] + target


def _checked_transforms(tseq, cache_size):
    """Cat's and Stack's `tseq`: checked to be transforms, each given the `cache_size`."""
    if not all(isinstance(t, Transform) for t in tseq):
        raise AssertionError("All elements of tseq must be Transform instances")
    if cache_size:
        tseq = [t.with_cache(cache_size) for t in tseq]
    return list(tseq)


class CatTransform(Transform):
    """Matches `CatTransform(tseq, dim=0, lengths=None)`: transform i applied to the i-th
    slice of `lengths[i]` along `dim`, the results concatenated."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        transforms = _checked_transforms(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.transforms = transforms
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(
                f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})"
            )
        self.dim = dim

    @functools.cached_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @functools.cached_property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _pieces(self, value, name):
        _check_dim(self.dim, value, name, self.length, f"length {self.length}")
        start = 0
        for transform, length in zip(self.transforms, self.lengths):
            yield transform, value.narrow(self.dim, start, length)
            start += length

    def _call(self, x):
        return cat([t(piece) for t, piece in self._pieces(x, "tensor:x")], dim=self.dim)

    def _inverse(self, y):
        return cat([t.inv(piece) for t, piece in self._pieces(y, "tensor:y")], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        terms = []
        pieces = zip(self._pieces(x, "x"), self._pieces(y, "y"))
        for (transform, x_piece), (_, y_piece) in pieces:
            term = transform.log_abs_det_jacobian(x_piece, y_piece)
            if transform.event_dim < self.event_dim:
                term = _sum_rightmost(term, self.event_dim - transform.event_dim)
            terms.append(term)
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim += self.event_dim
        if dim < 0:  # `dim` is a batch dim of the Jacobian terms: they line up along it
            return cat(terms, dim=dim)
        return functools.reduce(operator.add, terms)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Matches `StackTransform(tseq, dim=0)`: transform i applied to the i-th index along
    `dim`, the results stacked."""

    def __init__(self, tseq, dim=0, cache_size=0):
        transforms = _checked_transforms(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.transforms = transforms
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, value, name):
        n = len(self.transforms)
        _check_dim(self.dim, value, name, n, f"len(transforms) {n}")
        return [value.select(self.dim, i) for i in range(value.size(self.dim))]

    def _call(self, x):
        parts = zip(self._slices(x, "tensor:x"), self.transforms)
        return stack([t(piece) for piece, t in parts], dim=self.dim)

    def _inverse(self, y):
        parts = zip(self._slices(y, "tensor:y"), self.transforms)
        return stack([t.inv(piece) for piece, t in parts], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        xs, ys = self._slices(x, "x"), self._slices(y, "y")
        terms = [t.log_abs_det_jacobian(a, b) for a, b, t in zip(xs, ys, self.transforms)]
        return stack(terms, dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """Matches `CumulativeDistributionTransform(distribution)`: y = F(x), the distribution's
    CDF (its inverse is the icdf, its log |det J| the log density)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
