"""Gradient clipping: by total norm (`clip_grad_norm_`) and by value (`clip_grad_value_`)."""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np

from ..._tensor import Tensor
from ...graph.grad_mode import no_grad
from ...runtime.dtypes import LOW_PRECISION, promote_types

__all__ = [
    "get_total_norm",
    "clip_grads_with_norm_",
    "clip_grad_norm_",
    "clip_grad_norm",
    "clip_grad_value_",
]


def _tensors(parameters) -> list:
    if isinstance(parameters, Tensor):
        return [parameters]
    return list(parameters)


def _vector_norm(array, norm_type: float):
    """linalg.vector_norm of an array, as PyTorch's kernel: float16/bfloat16 accumulate in
    float32 and round once (See Note [Reduced-precision opmath])."""
    if array.dtype in LOW_PRECISION:
        return np.asarray(_vector_norm(array.astype(np.float32), norm_type)).astype(array.dtype)
    a = np.abs(array.reshape(-1))
    if norm_type == math.inf:
        return a.max() if a.size else a.dtype.type(0)
    if norm_type == -math.inf:
        return a.min() if a.size else a.dtype.type(math.inf)
    if norm_type == 0:
        return a.dtype.type(np.count_nonzero(a))
    if norm_type == 2:
        return np.sqrt(np.dot(a, a))
    return np.sum(a**norm_type) ** (1.0 / norm_type)


def get_total_norm(
    tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None
) -> Tensor:
    """Matches `torch.nn.utils.get_total_norm`: the norm of the per-tensor norms."""
    tensors = _tensors(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return Tensor._wrap(np.array(0.0, np.float32))
    # the per-tensor norms stacked, as PyTorch's torch.stack: in their promoted dtype
    dtype = functools.reduce(promote_types, (t.dtype for t in tensors)).np
    norms = np.array([_vector_norm(t._data, norm_type) for t in tensors], dtype=dtype)
    total = np.asarray(_vector_norm(norms, norm_type), dtype=norms.dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return Tensor._wrap(total)


def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach=None) -> None:
    """Matches `torch.nn.utils.clip_grads_with_norm_`: scale by min(1, max_norm / total)."""
    grads = [p._grad for p in _tensors(parameters) if p._grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    # in total_norm's dtype, as PyTorch computes it (a float32 norm gives a float32 coef)
    with no_grad():
        coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef)


def clip_grad_norm_(
    parameters,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach=None,
) -> Tensor:
    """Matches `torch.nn.utils.clip_grad_norm_`: rescale grads in place, return the total norm.

    `norm_type` may be `inf`; a non-finite norm raises PyTorch's error with
    error_if_nonfinite=True.
    """
    parameters = _tensors(parameters)
    grads = [p._grad for p in parameters if p._grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    if grads:
        clip_grads_with_norm_(parameters, max_norm, total)
    return total


def clip_grad_norm(
    parameters,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach=None,
) -> Tensor:
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Matches `torch.nn.utils.clip_grad_value_`: clamp every grad to [-v, v] in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _tensors(parameters):
            if p._grad is not None:
                p._grad.clamp_(min=-clip_value, max=clip_value)
