"""Random creation ops: rand, randn, randint, randperm, normal and their *_like forms.

Each is PyTorch's `empty(...)` filled by the in-place kernel (`uniform_`, `normal_`,
`random_`), so a seed gives PyTorch's numbers (See Note [torch's CPU random streams]).
"""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...runtime import dtypes, sampling
from ...runtime.dtypes import from_numpy_dtype
from ...runtime.memory_format import like as laid_out_like
from ...runtime.random import generator_of
from ..table.arguments import int_arg, int_list, invalid_combination, is_int, scalar_to, size_arg
from ..table.record import replayable
from ..table.surface import public
from .factories import _leaf, _np_dtype, allocate
from .random_fill import fill_normal, fill_random, fill_uniform, random_range
from .write_order import dense_axes


@replayable  # See Note [Replayable sources]
def _random(fn, fill, size, dtype, requires_grad, device, kernel) -> Tensor:
    shape = size_arg(fn, *size)  # size: (the positional sizes, size=)
    np_dtype = np.dtype(_np_dtype(dtype))
    if np_dtype.kind not in "fcV":  # V: bfloat16, See Note [bfloat16 on demand]
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{from_numpy_dtype(np_dtype)._legacy}'"
        )
    array = allocate(shape, np_dtype, lambda s, d: fill(np.empty(s, d)))
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
    gen = generator_of(generator)
    return _random(
        "rand",
        lambda x: fill_uniform(np, x, low=0.0, high=1.0, generator=gen),
        (sizes, size),
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
    gen = generator_of(generator)
    return _random(
        "randn",
        lambda x: fill_normal(np, x, mean=0.0, std=1.0, generator=gen),
        (sizes, size),
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
    np_dtype = np.dtype(_np_dtype(dtype, dtypes.int64))
    return _randint(low, high, shape, np_dtype, generator, requires_grad, device)


@replayable
def _randint(low, high, shape, np_dtype, generator, requires_grad, device, axes=None):
    range_, base = random_range(from_numpy_dtype(np_dtype), low, high)
    attrs = {"range_": range_, "base": base, "generator": generator_of(generator)}
    array = allocate(shape, np_dtype, lambda s, d: fill_random(np, _empty(s, d, axes), **attrs))
    return _leaf(array, requires_grad, device)


def _empty(shape, np_dtype, axes=None) -> np.ndarray:
    """An uninitialised array; with `axes`, laid out in that memory order (empty_like's)."""
    if axes is None:
        return np.empty(shape, np_dtype)
    return np.empty([shape[d] for d in axes], np_dtype).transpose(np.argsort(axes))


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
    gen = generator_of(generator)
    array = allocate((n,), np.int64, lambda s, _: sampling.randperm(gen, s[0]))
    return _leaf(array.astype(d.np), requires_grad, device)


def _random_like(name, fill, kernel):
    def like(
        input,
        *,
        dtype=None,
        device=None,
        requires_grad=False,
        layout=None,
        memory_format=None,
        generator=None,
    ):
        # PyTorch's empty_like keeps a transposed input's layout: the draws follow it
        gen = generator_of(generator)
        axes = dense_axes(input._data)
        t = _random(
            name,
            lambda x: fill(_empty(x.shape, x.dtype, axes), gen),
            ((input._data.shape,), None),
            dtype or input.dtype,
            requires_grad,
            device,
            kernel,
        )
        if memory_format is not None:
            t._data = laid_out_like(t._data, input._data, memory_format, name)
        return t

    like.__name__ = name
    return public(like, name=name)


rand_like = _random_like(
    "rand_like",
    lambda x, gen: fill_uniform(np, x, low=0.0, high=1.0, generator=gen),
    "check_uniform_bounds",
)
randn_like = _random_like(
    "randn_like",
    lambda x, gen: fill_normal(np, x, mean=0.0, std=1.0, generator=gen),
    "normal_kernel_cpu",
)


@public
def randint_like(
    input, low=0, high=None, *, dtype=None, device=None, requires_grad=False, generator=None
) -> Tensor:
    """Matches `torch.randint_like(input, low=0, high)`."""
    if high is None:
        low, high = 0, low
    np_dtype = np.dtype(_np_dtype(dtype or input.dtype))
    axes = dense_axes(input._data)
    return _randint(
        int(low), int(high), input._data.shape, np_dtype, generator, requires_grad, device, axes
    )


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
    """Matches `torch.normal` for number or tensor mean/std: N(0, 1) draws (N(0, std) for a
    number std with a tensor mean), then scaled and shifted in the output's type, as PyTorch's
    kernel does."""
    gen = generator_of(generator)
    mean_t, std_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if std_t and std._data.size and not (std._data >= 0).all():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not std_t and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    if not (mean_t or std_t):
        shape = int_list("normal", (size,), position=3, varargs=False) if size is not None else ()
        np_dtype = _np_dtype(dtype)
        array = allocate(
            shape,
            np_dtype,
            lambda s, d: fill_normal(np, np.empty(s, d), mean=mean, std=std, generator=gen),
        )
        return _leaf(array, requires_grad, device)
    m = mean._data if mean_t else mean
    s = std._data if std_t else std
    like = mean if mean_t else std
    shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    out = np.empty(shape, like._data.dtype)
    if mean_t and not std_t:
        out = fill_normal(np, out, mean=0.0, std=std, generator=gen)
    else:
        out = fill_normal(np, out, mean=0.0, std=1.0, generator=gen)
        np.multiply(out, s, out=out, casting="unsafe")
    np.add(out, m, out=out, casting="unsafe")
    return _leaf(out, requires_grad, device)
