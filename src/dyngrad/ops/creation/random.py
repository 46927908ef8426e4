"""Random creation ops: rand, randn, randint, randperm, normal and their *_like forms.

Streams come from dyngrad's generators (`runtime.random`): the same seed gives the same
numbers in dyngrad, not PyTorch's numbers.
"""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...runtime import dtypes
from ...runtime.dtypes import from_numpy_dtype
from ...runtime.memory_format import like as laid_out_like
from ...runtime.random import rng_of
from ..table.arguments import int_arg, int_list, invalid_combination, is_int, scalar_to, size_arg
from ..table.errors import c_type_name
from ..table.surface import public
from .factories import _leaf, _np_dtype, allocate


def _random(fn, sample, size, generator, dtype, requires_grad, device, kernel) -> Tensor:
    shape = size_arg(fn, *size)
    np_dtype = np.dtype(_np_dtype(dtype))
    if np_dtype.kind not in "fcV":  # V: bfloat16, See Note [bfloat16 on demand]
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{from_numpy_dtype(np_dtype)._legacy}'"
        )
    rng = rng_of(generator)
    if np_dtype in (np.float32, np.float64):
        array = allocate(shape, np_dtype, lambda s, d: sample(rng, s, d))
    else:
        array = allocate(shape, np_dtype, lambda s, d: sample(rng, s, np.float32).astype(d))
    return _leaf(array, requires_grad, device)


@public
def rand(
    *sizes,
    size=None,
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
        "rand",
        lambda rng, s, d: rng.random(s, dtype=d),
        (sizes, size),
        generator,
        dtype,
        requires_grad,
        device,
        "check_uniform_bounds",
    )


@public
def randn(
    *sizes,
    size=None,
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
        "randn",
        lambda rng, s, d: rng.standard_normal(s, dtype=d),
        (sizes, size),
        generator,
        dtype,
        requires_grad,
        device,
        "normal_kernel_cpu",
    )


@public
def randint(
    low=None,
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
    if low is None:  # randint(high=5, size=(3,))
        if high is None:
            raise TypeError("randint() missing required argument 'high'")
        low = 0
    if size is None or high is None:  # randint(high, size)
        if size is None and high is None:
            raise TypeError("randint() missing required argument 'size'")
        high, size = (low, high) if size is None else (low, size)
        low, high = 0, int_arg("randint", "high", 1, high)
        shape = int_list("randint", (size,), position=2, varargs=False)
    else:
        # an overload is chosen by the types (a size whose first element is an int), and only
        # then are the values unpacked
        sized = isinstance(size, (tuple, list)) and (not size or is_int(size[0]))
        if not (is_int(low) and is_int(high) and sized):
            given = {"dtype": dtype} if dtype is not None else None
            raise invalid_combination("randint", (low, high, size), given)
        low, high = int_arg("randint", "low", 1, low), int_arg("randint", "high", 2, high)
        shape = int_list("randint", (size,), position=3, varargs=False)
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    np_dtype = np.dtype(_np_dtype(dtype, dtypes.int64))
    _check_bounds(low, high, from_numpy_dtype(np_dtype))
    array = allocate(
        shape, np.int64, lambda s, d: rng_of(generator).integers(low, high, s, dtype=d)
    )
    return _leaf(array.astype(np_dtype), requires_grad, device)


def _check_bounds(low: int, high: int, d) -> None:
    # PyTorch checks that `from` and `to - 1` fit the dtype (float32/64 only warn)
    if d.is_floating_point and d is not dtypes.float16:
        return
    if d is dtypes.bool_:
        lo, hi = 0, 1
    else:
        info = np.finfo(d.np) if d.is_floating_point else np.iinfo(d.np)
        lo, hi = info.min, info.max
    if low < lo:
        raise RuntimeError(f"from is out of bounds for {c_type_name(d)}")
    if high - 1 > hi:
        raise RuntimeError(f"to - 1 is out of bounds for {c_type_name(d)}")


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
    n = int_arg("randperm", "n", 1, n)
    d = dtypes.int64 if dtype is None else from_numpy_dtype(_np_dtype(dtype))
    if d is dtypes.bool_:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    scalar_to(max(n - 1, 0), d)  # the largest value must fit the dtype
    array = allocate((n,), np.int64, lambda s, _: rng_of(generator).permutation(s[0]))
    return _leaf(array.astype(d.np), requires_grad, device)


def _random_like(name, fn):
    def like(
        input, *, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None
    ):
        t = fn(input._data.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)
        t._data = laid_out_like(t._data, input._data, memory_format, name)
        return t

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
