"""Normal draws as PyTorch's CPU kernel makes them, bit for bit."""

# Note [Two normal kernels]
# PyTorch's `normal_` (and so randn, torch.normal, nn.init.normal_) switches algorithm on the
# tensor: a contiguous tensor of 16 or more elements takes `normal_fill`, which draws every
# uniform first, then turns each block of 16 into 8 Box-Muller pairs (u1 from the first 8,
# u2 from the next 8); a size that is not a multiple of 16 redraws 16 fresh uniforms for the
# last 16 elements, overwriting some. float32 (and float16/bfloat16, through float32) uses the
# AVX2 kernel (Note [The AVX2 normal kernel]), float64 the C library, then fma(x, std, mean).
# Anything smaller or non-contiguous takes the scalar path: one double Box-Muller pair per two
# values from two 53-bit uniforms, `log1p`, the second value cached in the generator for the
# next call (even the next call of another op, until `manual_seed`).

from __future__ import annotations

import math

import numpy as np

from .exact_math import fma32, fma64, libm, log64, log_avx2, sincos_avx2
from .random import Generator

__all__ = ["normal", "scalar_normals", "uniform32", "uniform64"]

_TWO_PI_F32 = np.float32(2.0 * math.pi)
_LOW24, _LOW53 = np.uint64(2**24 - 1), np.uint64(2**53 - 1)
_ULP24 = np.float32(2.0**-24)


def uniform32(gen: Generator, n: int) -> np.ndarray:
    """PyTorch's float uniforms on [0, 1): the low 24 bits of a word, over 2**24."""
    words = gen.random(n)
    words &= _LOW24
    values = words.astype(np.float32)
    values *= _ULP24
    return values


def uniform64(gen: Generator, n: int) -> np.ndarray:
    """PyTorch's double uniforms on [0, 1): the low 53 bits of `random64`, over 2**53."""
    words = gen.random64(n)
    words &= _LOW53
    values = words.astype(np.float64)
    values *= 2.0**-53
    return values


def normal(gen: Generator, n: int, np_dtype, mean: float, std: float, contiguous: bool = True):
    """n values of N(mean, std²) of `np_dtype`, as `Tensor.normal_` draws them into a tensor
    (in memory order). See Note [Two normal kernels]."""
    if n >= 16 and contiguous:
        if np_dtype == np.float64:
            return _fill(gen, n, n, uniform64, lambda u1, u2: _box_muller64(u1, u2, mean, std))
        # float16 and bfloat16 go through float32 block by block: no uniforms are drawn for
        # the places the tail overwrites, unlike float32's draw-everything-first
        drawn = n if np_dtype == np.float32 else n - n % 16
        values = _fill(gen, n, drawn, uniform32, lambda u1, u2: _box_muller_avx2(u1, u2, mean, std))
        return values.astype(np_dtype, copy=False)
    return scalar_normals(gen, n, mean, std).astype(np_dtype, copy=False)


_CHUNK = 1 << 16  # values per pass: the temporaries stay in the cache


def _fill(gen, n, drawn, uniform, transform):
    u = uniform(gen, drawn)
    whole = n - n % 16
    if whole < n:  # PyTorch's tail: 16 fresh uniforms for the last 16 places
        u = np.concatenate([u[:whole], uniform(gen, 16)])
    out = np.empty(len(u), u.dtype)
    for start in range(0, len(u), _CHUNK):
        _box_muller(u[start : start + _CHUNK], out[start : start + _CHUNK], transform)
    if whole == n:
        return out
    # the tail's 16 values overwrite the last 16 places (a new array: no view of a longer one)
    return np.concatenate([out[: n - 16], out[whole:]])


def _box_muller(u: np.ndarray, out: np.ndarray, transform) -> None:
    """Blocks of 16 uniforms into 8 pairs: u1 the first 8 of a block, u2 the last 8."""
    blocks = u.reshape(-1, 2, 8)
    first, second = transform(blocks[:, 0].ravel(), blocks[:, 1].ravel())
    pairs = out.reshape(-1, 2, 8)
    pairs[:, 0] = first.reshape(-1, 8)
    pairs[:, 1] = second.reshape(-1, 8)


def _box_muller_avx2(u1, u2, mean: float, std: float):
    radius = np.sqrt(np.float32(-2) * log_avx2(np.float32(1) - u1))
    sin, cos = sincos_avx2(_TWO_PI_F32 * u2)
    first, second = radius * cos, radius * sin
    mean, std = np.float32(mean), np.float32(std)
    if std == 1 and mean == 0:
        return first, second
    return fma32(first, std, mean), fma32(second, std, mean)


def _box_muller64(u1, u2, mean: float, std: float):
    radius = np.sqrt(-2 * log64(1 - u1))
    theta = 2.0 * math.pi * u2  # PyTorch: 2.0f * pi<double> * u2, in double
    return _scale64(radius * np.cos(theta), mean, std), _scale64(radius * np.sin(theta), mean, std)


def _scale64(x: np.ndarray, mean: float, std: float) -> np.ndarray:
    """fma(x, std, mean) in double; a plain product or sum where that is the same."""
    if std == 1:
        return x + mean
    if mean == 0:
        return x * std + 0.0  # + 0.0: fma gives +0 for a -0 product
    return fma64(x, std, mean)


def scalar_normals(gen: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """n doubles of N(mean, std²) from PyTorch's scalar `normal_distribution<double>`, with the
    generator's cached second value of a pair used first and refilled."""
    values = []
    if n and gen.next_double_normal is not None:
        values.append(gen.next_double_normal)
        gen.next_double_normal = None
    pairs = (n - len(values) + 1) // 2
    if pairs > 8:
        values = np.concatenate([values, _pairs(gen, pairs)])
    else:
        values += _few_pairs(gen, pairs)
    if len(values) > n:  # the last pair's second value waits in the generator
        gen.next_double_normal = float(values[-1])
        values = values[:-1]
    return _scale64(np.asarray(values, dtype=np.float64), mean, std)


def _pairs(gen: Generator, pairs: int) -> np.ndarray:
    """Box-Muller pairs (r cos θ, r sin θ) from two 53-bit uniforms each (u1 for θ)."""
    u = uniform64(gen, 2 * pairs).reshape(-1, 2)
    radius = np.sqrt(-2 * libm(math.log1p, -u[:, 1]))
    theta = 2.0 * math.pi * u[:, 0]
    return np.stack([radius * np.cos(theta), radius * np.sin(theta)], axis=1).reshape(-1)


def _few_pairs(gen: Generator, pairs: int) -> list:
    """`_pairs` in plain Python floats (the same double operations): quicker for a few."""
    words = (gen.random64(2 * pairs) & _LOW53).tolist()
    values = []
    for i in range(0, len(words), 2):
        radius = math.sqrt(-2 * math.log1p(-(words[i + 1] * 2.0**-53)))
        theta = 2.0 * math.pi * (words[i] * 2.0**-53)
        values += [radius * math.cos(theta), radius * math.sin(theta)]
    return values
