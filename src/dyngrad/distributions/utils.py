"""`torch.distributions.utils`: broadcasting parameters, probs <-> logits, lazy properties."""

from __future__ import annotations

import functools
from numbers import Number

from .._tensor import Tensor
from ..graph.grad_mode import enable_grad
from ..nn.functional import softmax
from ..ops.creation.factories import empty, tensor
from ..ops.creation.ranges import arange
from ..ops.elementwise.arithmetic import log, sigmoid
from ..ops.elementwise.unary import log1p
from ..ops.shape.grids import broadcast_tensors
from ..runtime import dtypes
from ..runtime.dtypes import get_default_dtype

__all__ = [
    "broadcast_all",
    "clamp_probs",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
    "euler_constant",
]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni


def finfo(dtype):
    """The machine limits of a float dtype (`torch.finfo`'s eps, tiny, min, max)."""
    return dtypes.finfo(dtype.np)


def broadcast_all(*values):
    """Matches `broadcast_all`: tensors broadcast together; numbers become tensors of the first
    tensor's dtype (or the default dtype when all are numbers)."""
    if not all(isinstance(v, (Tensor, Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, torch.Tensor or "
            "objects implementing __torch_function__."
        )
    if not all(isinstance(v, Tensor) for v in values):
        like = next((v for v in values if isinstance(v, Tensor)), None)
        dtype = like.dtype if like is not None else get_default_dtype()
        values = [v if isinstance(v, Tensor) else tensor(v, dtype=dtype) for v in values]
    return broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    # as PyTorch: normal_ on a new tensor (so the draws match once the streams do)
    return empty(shape, dtype=dtype).normal_()


def _sum_rightmost(value, dim: int):
    """Sum out `dim` rightmost dims."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary: bool = False):
    """Matches `logits_to_probs`: sigmoid for binary logits, softmax over the last dim else."""
    if is_binary:
        return sigmoid(logits)
    return softmax(logits, dim=-1)


def clamp_probs(probs):
    """Matches `clamp_probs`: probabilities clamped into [eps, 1 - eps]."""
    eps = float(finfo(probs.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary: bool = False):
    """Matches `probs_to_logits`: log odds for binary probabilities, log probabilities else."""
    clamped = clamp_probs(probs)
    if is_binary:
        return log(clamped) - log1p(-clamped)
    return log(clamped)


class lazy_property:
    """A property computed once, with grad enabled, then stored on the instance."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, owner=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _BinaryProbsOrLogits:
    """Mixin of the distributions parameterised by one Bernoulli `probs` or by its `logits`
    (exactly one given, as PyTorch's): the other is computed lazily when first read."""

    def _set_probs_or_logits(self, probs, logits, total_count=None):
        """Stores the given parameter as `probs` or `logits`, and as `_param`; with
        `total_count`, broadcasts the two and stores `total_count` in the parameter's dtype.
        Returns the stored parameter."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        if total_count is None:
            (param,) = broadcast_all(given)
        else:
            total_count, param = broadcast_all(total_count, given)
            self.total_count = total_count.type_as(param)
        setattr(self, name, param)
        self._param = param
        return param

    def _expand_probs_or_logits(self, new, batch_shape):
        """`expand`'s share: the stored parameter (not the lazy one) expanded onto `new`."""
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
                new._param = getattr(new, name)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)


class _lazy_property_and_property(lazy_property, property):
    """On the class, a lazy property reads as both (docs see a property, validation a lazy one)."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_mask(n: int, diag: int):
    rows = arange(n)
    return rows < rows.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag: int = 0):
    """Matches `tril_matrix_to_vec`: the lower triangle of (a batch of) D x D matrices, by rows."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec, diag: int = 0):
    """Matches `vec_to_tril_matrix`: the inverse of `tril_matrix_to_vec`."""
    m = vec.shape[-1]
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > float(finfo(vec.dtype).eps):
        raise ValueError(
            f"The size of last dimension is {m} which cannot be expressed as the "
            "lower triangular part of a square D x D matrix."
        )
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + (n, n))
    mat[..., _tril_mask(n, diag)] = vec
    return mat
