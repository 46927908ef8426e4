"""PyTorch's CPU sampling kernels on NumPy: how each distribution turns mt19937 words into
values, bit for bit (normals are in normal_sampling.py). See Note [torch's CPU random streams].

Every function draws `n` values in the order PyTorch's kernel writes them (a tensor's memory
order) and returns a flat array.
"""

from __future__ import annotations

import math

import numpy as np

from .exact_math import fma32, fma64, libm
from .normal_sampling import scalar_normals, uniform32, uniform64
from .random import Generator

__all__ = [
    "uniform",
    "random_from_to",
    "random_full_range",
    "random_bits",
    "bernoulli",
    "bernoulli_tensor",
    "exponential",
    "geometric",
    "cauchy",
    "log_normal",
    "randperm",
    "multinomial_with_replacement",
]

_U64 = np.uint64
# PyTorch's 64-bit draws (random64) serve these types once a range needs more than 32 bits
_WIDE = {"int64", "float64", "float32", "bfloat16"}


def uniform(gen: Generator, n: int, np_dtype, low: float, high: float) -> np.ndarray:
    """`Tensor.uniform_(low, high)`: fma(u, high - low, low) in float (float, half, bfloat16)
    or double, and a value that rounds up to `high` becomes `low`."""
    if low == 0 and high == 1 and np_dtype in (np.float32, np.float64):  # rand(): u itself
        return uniform64(gen, n) if np_dtype == np.float64 else uniform32(gen, n)
    if np_dtype == np.float64:
        u, d, low_, high_ = uniform64(gen, n), high - low, float(low), float(high)
        values = u * d + low_ if d == 1 or low_ == 0 else fma64(u, d, low_)
    else:
        low_, high_ = np.float32(low), np.float32(high)
        u, d = uniform32(gen, n), high_ - low_
        values = u * d + low_ if d == 1 or low_ == 0 else fma32(u, d, low_)
        values = values.astype(np_dtype, copy=False)
    top = np.asarray(high_).astype(np_dtype)
    np.copyto(values, np.asarray(low_).astype(np_dtype), where=values == top)
    return values


def random_from_to(gen: Generator, n: int, np_dtype, range_: int, base: int) -> np.ndarray:
    """`random_(from, to)` and `randint`: (word % range) + from, with one 32-bit word per value,
    or a 64-bit draw for the wide types when the range needs it."""
    wide = range_ >= 2**32 and np.dtype(np_dtype).name in _WIDE
    words = gen.random64(n) if wide else gen.random(n)
    offset = _U64(base % 2**64)
    values = ((words % _U64(range_)) + offset).view(np.int64)  # wraps as PyTorch's uint64 does
    return _cast(values, np_dtype)


def random_full_range(gen: Generator, n: int, np_dtype) -> np.ndarray:
    """`random_(-2**63, None)`: every int64, one 64-bit draw each."""
    return _cast(gen.random64(n).view(np.int64), np_dtype)


def random_bits(gen: Generator, n: int, np_dtype) -> np.ndarray:
    """`random_()`: [0, 2**mantissa] for floating types, [0, max] for integers, 0/1 for bool."""
    d = np.dtype(np_dtype)
    if d == np.bool_:
        return (gen.random(n) & np.uint32(1)).astype(np.bool_)
    if d in (np.int64, np.float64):
        words = gen.random64(n)
    else:
        words = gen.random(n)
    if d.kind == "f" or d.name == "bfloat16":
        digits = {2: 11, 4: 24, 8: 53}[d.itemsize] if d.name != "bfloat16" else 8
        modulus = 2**digits + 1
    else:
        modulus = int(np.iinfo(d).max) + 1
    return _cast((words % _U64(modulus)).view(np.int64), np_dtype)


def _cast(values: np.ndarray, np_dtype) -> np.ndarray:
    if np.dtype(np_dtype) == np.bool_:
        return values != 0
    return values.astype(np_dtype)


def bernoulli(gen: Generator, n: int, p: float) -> np.ndarray:
    """`bernoulli_(p)` with a number: a double uniform below p (as 0/1 doubles)."""
    return (uniform64(gen, n) < p).astype(np.float64)


def bernoulli_tensor(gen: Generator, p: np.ndarray) -> np.ndarray:
    """`bernoulli_(p)` with a tensor (and `torch.bernoulli`): double uniforms against double
    probabilities, float uniforms (24 bits) against the others."""
    if p.dtype == np.float64:
        return (uniform64(gen, p.size) < p.ravel()).astype(np.float64)
    return (uniform32(gen, p.size) < p.ravel().astype(np.float32)).astype(np.float64)


def exponential(gen: Generator, n: int, lambd: float) -> np.ndarray:
    """`exponential_(lambd)`: -1/lambd * log1p(-u) in double."""
    return (-1.0 / lambd) * libm(math.log1p, -uniform64(gen, n))


def geometric(gen: Generator, n: int, p: float) -> np.ndarray:
    """`geometric_(p)`: ceil(log u / log1p(-p)) in double."""
    return np.ceil(libm(math.log, uniform64(gen, n)) / math.log1p(-p))


def cauchy(gen: Generator, n: int, median: float, sigma: float) -> np.ndarray:
    """`cauchy_(median, sigma)`: median + sigma * tan(pi * (u - 0.5)) in double."""
    tangent = libm(math.tan, math.pi * (uniform64(gen, n) - 0.5))
    return fma64(np.float64(sigma), tangent, np.float64(median))


def log_normal(gen: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """`log_normal_(mean, std)`: exp of the scalar normal draws."""
    return libm(math.exp, scalar_normals(gen, n, mean, std))


def randperm(gen: Generator, n: int) -> np.ndarray:
    """`torch.randperm(n)`: Fisher-Yates, swapping i with i + word % (n - i) for each i < n-1
    (below 2**32 / 20; above it PyTorch's inside-out shuffle with 64-bit draws)."""
    if n < (2**32 - 1) // 20:
        steps = np.arange(n, 1, -1, dtype=_U64)
        picks = np.arange(n - 1, dtype=_U64) + gen.random(max(n - 1, 0)) % steps
        order = list(range(n))
        for i, j in enumerate(picks.tolist()):
            order[i], order[j] = order[j], order[i]
        return np.array(order, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    picks = gen.random64(n) % np.arange(1, n + 1, dtype=_U64)
    for i, z in enumerate(picks.tolist()):
        order[i] = order[z]
        order[z] = i
    return order


def multinomial_with_replacement(gen: Generator, rows: np.ndarray, samples: int) -> np.ndarray:
    """`torch.multinomial(p, samples, replacement=True)` for 2-D p: per row the running sum
    in the row's type (float for half and bfloat16), divided by the total, the last set to 1,
    then for each draw the first index whose running sum reaches a double uniform."""
    compute = np.float64 if rows.dtype == np.float64 else np.float32
    out = np.empty((rows.shape[0], samples), dtype=np.int64)
    for i, row in enumerate(rows.astype(compute)):
        cum = np.cumsum(row, dtype=compute)
        cum = cum / cum[-1]
        cum[-1] = 1
        out[i] = np.searchsorted(cum.astype(np.float64), uniform64(gen, samples), side="left")
    return out
