"""Random creation ops: rand, randn, randint, randperm, normal and their *_like forms.

Streams come from dyngrad's generators (`backend.random`): the same seed gives the same
numbers in dyngrad, not PyTorch's numbers.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..backend import dtypes
from ..backend.dtypes import from_numpy_dtype
from ..backend.random import rng_of
from .creation import _check_shape, _leaf, _np_dtype
from .shape import shape_arg
from .surface import public


def _random(sample, size, generator, dtype, requires_grad, device, kernel) -> Tensor:
    shape = shape_arg(size)
    _check_shape(shape)
    np_dtype = np.dtype(_np_dtype(dtype))
    if np_dtype.kind not in "fc" and np_dtype != dtypes.bfloat16.np:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{from_numpy_dtype(np_dtype)._legacy}'"
        )
    rng = rng_of(generator)
    if np_dtype in (np.float32, np.float64):
        array = sample(rng, shape, np_dtype)
    else:
        array = sample(rng, shape, np.float32).astype(np_dtype)
    return _leaf(array, requires_grad, device)


@public
def rand(
    *size,
    generator=None,
    dtype=None,
    device=None,
    requires_grad=False,
    out=None,
    layout=None,
    pin_memory=False,
) -> Tensor:
    """Matches `torch.rand`: uniform on [0, 1)."""
    return _random(
        lambda rng, s, d: rng.random(s, dtype=d),
        size,
        generator,
        dtype,
        requires_grad,
        device,
        "check_uniform_bounds",
    )


@public
def randn(
    *size,
    generator=None,
    dtype=None,
    device=None,
    requires_grad=False,
    out=None,
    layout=None,
    pin_memory=False,
) -> Tensor:
    """Matches `torch.randn`: standard normal."""
    return _random(
        lambda rng, s, d: rng.standard_normal(s, dtype=d),
        size,
        generator,
        dtype,
        requires_grad,
        device,
        "normal_kernel_cpu",
    )


@public
def randint(
    low,
    high=None,
    size=None,
    *,
    generator=None,
    dtype=None,
    device=None,
    requires_grad=False,
    out=None,
    layout=None,
) -> Tensor:
    """Matches `torch.randint(low=0, high, size)`."""
    if size is None:
        if not isinstance(high, (tuple, list)):
            raise TypeError("randint() missing required argument 'size'")
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    array = rng_of(generator).integers(low, high, tuple(size), dtype=np.int64)
    return _leaf(array.astype(_np_dtype(dtype, dtypes.int64)), requires_grad, device)


@public
def randperm(
    n,
    *,
    generator=None,
    dtype=None,
    device=None,
    requires_grad=False,
    out=None,
    layout=None,
    pin_memory=False,
) -> Tensor:
    """Matches `torch.randperm`."""
    array = rng_of(generator).permutation(int(n)).astype(_np_dtype(dtype, dtypes.int64))
    return _leaf(array, requires_grad, device)


def _random_like(name, fn):
    def like(
        input, *, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None
    ):
        return fn(input._data.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)

    like.__name__ = name
    return public(like, name=name)


rand_like = _random_like("rand_like", rand)
randn_like = _random_like("randn_like", randn)


@public
def randint_like(
    input, low=0, high=None, *, dtype=None, device=None, requires_grad=False
) -> Tensor:
    if high is None:
        low, high = 0, low
    return randint(low, high, input._data.shape, dtype=dtype or input.dtype)


@public
def normal(
    mean=0.0,
    std=1.0,
    size=None,
    *,
    generator=None,
    dtype=None,
    device=None,
    requires_grad=False,
    out=None,
) -> Tensor:
    """Matches `torch.normal` for number or tensor mean/std."""
    rng = rng_of(generator)
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    shape = tuple(size) if size is not None else np.broadcast_shapes(np.shape(m), np.shape(s))
    like = mean if isinstance(mean, Tensor) else std if isinstance(std, Tensor) else None
    np_dtype = like._data.dtype if like is not None else _np_dtype(dtype)
    array = (m + s * rng.standard_normal(shape)).astype(np_dtype)
    return _leaf(array, requires_grad, device)


