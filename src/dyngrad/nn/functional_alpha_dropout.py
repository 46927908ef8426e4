"""`alpha_dropout` and `feature_alpha_dropout`: dropout that keeps SELU's zero mean and unit
variance, PyTorch's composite (input * a * keep + b, nodes MulBackward0 then AddBackward0)."""

from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from ..runtime import sampling
from ..runtime.random import default_generator
from .functional_dropout import _check_p

# SELU's -scale * alpha: where a dropped unit goes before the affine correction
_ALPHA = 1.7580993408473766


def _alpha_dropout(input, p, training, inplace, feature: bool):
    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0.0) if inplace else input * Tensor._wrap(np.zeros((), input._data.dtype))
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2) if feature else tuple(input.shape)
    keep = sampling.bernoulli(default_generator, int(np.prod(shape)), 1 - p).reshape(shape)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    # in the input's type with the scalars rounded to it, as PyTorch's kernels compute
    # (noise - 1) * (alpha a) + alpha a p and noise * a
    scalar = input._data.dtype.type
    keep = keep.astype(input._data.dtype)
    b = Tensor._wrap((keep - 1) * scalar(_ALPHA * a) + scalar(_ALPHA * a * p))
    noise = Tensor._wrap(keep * scalar(a))
    out = input.mul_(noise) if inplace else input * noise
    return out.add_(b)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Matches `torch.nn.functional.alpha_dropout`."""
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Matches `torch.nn.functional.feature_alpha_dropout`: whole channels dropped."""
    return _alpha_dropout(input, p, training, inplace, feature=True)
