"""Random sampling into tensors: `normal_`, `uniform_`, `bernoulli`, `multinomial`, `random_`, ...

PyTorch's CPU kernels, bit for bit (`runtime.sampling`; See Note [torch's CPU random
streams]): `manual_seed(s)` gives PyTorch's numbers. In-place fills on a tensor in the graph
record a node with a zero gradient, as PyTorch's `NormalBackward0` and friends do.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..._tensor import Tensor
from ...runtime import dtypes, sampling
from ...runtime.normal_sampling import normal
from ...runtime.random import generator_of
from ..table.errors import c_type_name
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .write_order import dense_axes, is_contiguous, place, read


def _zeros(g):
    return g.new_zeros(g.shape)


def _legacy(x) -> str:
    return dtypes.from_numpy_dtype(x.dtype)._legacy


def _require_float(x, kernel):
    d = dtypes.from_numpy_dtype(x.dtype)
    if not (d.is_floating_point or d.is_complex):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_legacy(x)}'")


def _as_real(x):
    """A complex array's (re, im) pairs as a real array, as PyTorch's view_as_real."""
    return x.view(x.real.dtype).reshape(x.shape + (2,)) if x.dtype.kind == "c" else x


def _filled(x, draw):
    """`draw(n, dtype, contiguous)` placed into an array like `x`, in x's memory order;
    complex tensors are filled as their real view."""
    real = np.ascontiguousarray(_as_real(x)) if x.dtype.kind == "c" else x
    values = place(draw(real.size, real.dtype, is_contiguous(x)), real)
    if x.dtype.kind == "c":
        return values.view(x.dtype).reshape(x.shape)
    return values


# ---- forwards on arrays ---------------------------------------------------------------------


def fill_normal(xp, x, *, mean, std, generator):
    _require_float(x, "normal_kernel_cpu")
    if x.dtype.kind == "c":
        std = std / math.sqrt(2)
    return _filled(x, lambda n, d, contiguous: normal(generator, n, d, mean, std, contiguous))


def fill_uniform(xp, x, *, low, high, generator):
    _require_float(x, "check_uniform_bounds")
    return _filled(x, lambda n, d, _: sampling.uniform(generator, n, d, low, high))


def _double_draws(x, generator, draw):
    """Values PyTorch computes in double, then casts to x's type."""
    return _filled(x, lambda n, d, _: draw(generator, n).astype(d))


def _exponential(xp, x, *, lambd, generator):
    return _double_draws(x, generator, lambda g, n: sampling.exponential(g, n, lambd))


def _cauchy(xp, x, *, median, sigma, generator):
    return _double_draws(x, generator, lambda g, n: sampling.cauchy(g, n, median, sigma))


def _log_normal(xp, x, *, mean, std, generator):
    return _double_draws(x, generator, lambda g, n: sampling.log_normal(g, n, mean, std))


def _geometric(xp, x, *, p, generator):
    return _double_draws(x, generator, lambda g, n: sampling.geometric(g, n, p))


def fill_random(xp, x, *, range_, base, generator):
    if range_ is None:  # random_(): the type's own range
        return place(sampling.random_bits(generator, x.size, x.dtype), x)
    if range_ == 0:  # random_(-2**63, None): every int64
        return place(sampling.random_full_range(generator, x.size, x.dtype), x)
    return place(sampling.random_from_to(generator, x.size, x.dtype, range_, base), x)


def _bernoulli_scalar(xp, x, *, p, generator):
    return place(sampling.bernoulli(generator, x.size, p).astype(x.dtype), x)


def _bernoulli_tensor(xp, x, p, *, generator):
    return place(sampling.bernoulli_tensor(generator, read(p, x)).astype(x.dtype), x)


def _bernoulli(xp, p, *, generator):
    _require_float(p, "bernoulli_tensor_cpu_p_")
    if not ((p >= 0) & (p <= 1)).all():
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could "
            "this error message be improved?  If so, please report an "
            "enhancement request to PyTorch.)"
        )
    # the output is a contiguous empty_like(p), and PyTorch walks the output's order
    draws = sampling.bernoulli_tensor(generator, np.ascontiguousarray(p).ravel())
    return draws.astype(p.dtype).reshape(p.shape)


def _multinomial(xp, probs, *, num_samples, replacement, generator):
    rows = probs.reshape(-1, probs.shape[-1])
    if replacement and num_samples > 1:
        out = sampling.multinomial_with_replacement(generator, rows, num_samples)
    else:
        # PyTorch's race of exponentials: p / E, E ~ Exp(1), in p's type; the largest win.
        # E fills an empty_like(p): a transposed p's layout (See write_order.py)
        axes = dense_axes(probs)
        noise = sampling.exponential(generator, probs.size, 1.0).astype(probs.dtype)
        keys = rows / place(noise, probs, axes).reshape(rows.shape)
        if num_samples == 1:
            out = keys.argmax(axis=1)[:, None]
        else:
            out = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    return out.reshape(probs.shape[:-1] + (num_samples,)).astype(np.int64)


# ---- the table ------------------------------------------------------------------------------

NORMAL = defop("normal_", fill_normal, {"x": _zeros}, node="NormalBackward0")
UNIFORM = defop("uniform_", fill_uniform, {"x": _zeros}, node="UniformBackward0")
EXPONENTIAL = defop("exponential_", _exponential, {"x": _zeros}, node="ExponentialBackward0")
CAUCHY = defop("cauchy_", _cauchy, {"x": _zeros}, node="CauchyBackward0")
LOG_NORMAL = defop("log_normal_", _log_normal, {"x": _zeros}, node="LogNormalBackward0")
GEOMETRIC = defop("geometric_", _geometric, {"x": _zeros}, node="GeometricBackward0")
# PyTorch numbers random_'s nodes by signature: (from, to), (to), ()
RANDOM = {
    n: defop(f"random_{n}", fill_random, {"x": _zeros}, node=f"RandomBackward{n}") for n in range(3)
}
BERNOULLI_SCALAR_ = defop(
    "bernoulli_scalar_", _bernoulli_scalar, {"x": _zeros}, node="BernoulliBackward2"
)
BERNOULLI_TENSOR_ = defop(
    "bernoulli_tensor_", _bernoulli_tensor, {"x": _zeros, "p": _zeros}, node="BernoulliBackward1"
)
BERNOULLI = defop("bernoulli", _bernoulli, {"p": _zeros})


def _not_implemented(g):
    raise RuntimeError("derivative for aten::bernoulli is not implemented")


def _bernoulli_p(xp, x, *, p, generator):
    # a contiguous empty_like(x), filled in order
    return sampling.bernoulli(generator, x.size, p).astype(x.dtype).reshape(x.shape)


BERNOULLI_P = defop(
    "bernoulli_p",
    _bernoulli_p,
    {"x": _not_implemented},
    node="torch::autograd::NotImplemented",
)
MULTINOMIAL = defop("multinomial", _multinomial)

# ---- the public surface ----------------------------------------------------------------------


@public(function=False)
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Matches `Tensor.normal_`."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    attrs = {"mean": mean, "std": std, "generator": generator_of(generator)}
    return apply_inplace(NORMAL, (self,), attrs, name="normal_")


@public(function=False)
def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kwargs):
    """Matches `Tensor.uniform_(from=0, to=1)`."""
    from_ = kwargs.pop("from", from_)
    if from_ > to:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={from_:g} > to={to:g}"
        )
    attrs = {"low": from_, "high": to, "generator": generator_of(generator)}
    return apply_inplace(UNIFORM, (self,), attrs, name="uniform_")


@public(function=False)
def exponential_(self, lambd=1.0, *, generator=None):
    """Matches `Tensor.exponential_`."""
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            "Exponential distribution is a continuous probability distribution. dtype must be "
            f"a floating point but you specified {self.dtype._legacy}"
        )
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    attrs = {"lambd": lambd, "generator": generator_of(generator)}
    return apply_inplace(EXPONENTIAL, (self,), attrs, name="exponential_")


@public(function=False)
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Matches `Tensor.cauchy_`."""
    attrs = {"median": median, "sigma": sigma, "generator": generator_of(generator)}
    return apply_inplace(CAUCHY, (self,), attrs, name="cauchy_")


@public(function=False)
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Matches `Tensor.log_normal_` (PyTorch's defaults: mean 1, std 2)."""
    attrs = {"mean": mean, "std": std, "generator": generator_of(generator)}
    return apply_inplace(LOG_NORMAL, (self,), attrs, name="log_normal_")


@public(function=False)
def geometric_(self, p, *, generator=None):
    """Matches `Tensor.geometric_`: the number of trials up to the first success."""
    return apply_inplace(
        GEOMETRIC, (self,), {"p": p, "generator": generator_of(generator)}, name="geometric_"
    )


@public(function=False)
def random_(self, *bounds, generator=None, **kwargs):
    """Matches `Tensor.random_()`, `random_(to)` and `random_(from, to)` (`to=None`: the max)."""
    bounds = bounds + tuple(kwargs.pop(k) for k in ("from", "to") if k in kwargs)
    n = 2 - len(bounds)  # PyTorch numbers random_'s nodes by signature: (from, to), (to), ()
    range_, base = None, 0
    if bounds:
        low, to = (0, bounds[0]) if n == 1 else bounds
        range_, base = random_range(self.dtype, int(low), None if to is None else int(to))
    attrs = {"range_": range_, "base": base, "generator": generator_of(generator)}
    return apply_inplace(RANDOM[n], (self,), attrs, name="random_")


def random_range(d, low: int, to: int | None) -> tuple[int, int]:
    """(range, from) of `random_(low, to)` on dtype `d`, with PyTorch's checks; range 0 is the
    whole int64 range (`random_(-2**63, None)`)."""
    if to is not None:
        if low >= to:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={low} >= to={to}"
            )
        if d.is_floating_point:
            low, to = _round_from(low, d), _round_to(to, d)
            if low >= to:
                raise RuntimeError(
                    "random_ expects 'from' casted to dtype to be less than 'to' casted to "
                    f"dtype, but got from={low} >= to={to}"
                )
        _check_in_range(low, to - 1, d)
        return (to - low) % 2**64, low
    if low == -(2**63):
        if d.name not in ("int64", "float64", "float32", "bfloat16"):
            raise RuntimeError(
                "random_full_64_bits_range_kernel_cpu handles only int64, double, float and "
                "bfloat16"
            )
        return 0, low
    if d.is_floating_point:
        top = min(2 ** _digits(d), 2**63 - 1)
        low = _round_from(low, d)
        if low >= top:
            raise RuntimeError(
                "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                f"casted to dtype, but got from={low} > to_inc={top}"
            )
    else:
        top = 1 if d is dtypes.bool_ else int(np.iinfo(d.np).max)
    _check_in_range(low, top, d)
    return top - low + 1, low


def _digits(d) -> int:
    return {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}[d.name]


def _as_int(value: int, d) -> int:
    return int(np.asarray(value, dtype=np.float64).astype(d.np).astype(np.float64))


def _round_from(low: int, d) -> int:
    # a `from` that rounds down in d moves up to the next value d holds
    rounded = _as_int(low + 1, d)
    if rounded < low:
        return rounded + (1 << (abs(low + 1).bit_length() - _digits(d)))
    return low


def _round_to(to: int, d) -> int:
    rounded = _as_int(to - 1, d)
    if rounded >= to:
        return rounded - (1 << (abs(to - 1).bit_length() - _digits(d)))
    return to


def _check_in_range(low: int, top: int, d) -> None:
    """PyTorch's check_from_to_in_range: errors outside the type, warnings past 2**digits."""
    if d.is_floating_point:
        info = np.finfo(np.float32 if d.name == "bfloat16" else d.np)
        lo, hi = float(info.min), float(info.max)
    elif d is dtypes.bool_:
        lo, hi = 0, 1
    else:
        lo, hi = int(np.iinfo(d.np).min), int(np.iinfo(d.np).max)
    if not lo <= low <= hi:
        raise RuntimeError(f"from is out of bounds for {c_type_name(d)}")
    if not lo <= top <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {c_type_name(d)}")
    if d.is_floating_point:
        digits = _digits(d)
        for name, value in (("from", low), ("to - 1", top)):
            if value < -(2**digits) or value > 2**digits:
                warnings.warn(_imprecise(name, digits, d), stacklevel=4)


def _imprecise(name: str, digits: int, d) -> str:
    return (
        f"{name} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
        f"{c_type_name(d)} can support discrete uniform distribution only within this range. "
        "This warning will become an error in version 1.7 release, please fix the code in "
        "advance"
    )


@public
def bernoulli(input, p=None, *, generator=None):
    """Matches `torch.bernoulli`: 1 with probability `input` (or `p`), else 0."""
    if p is None:
        return apply(BERNOULLI, (input,), {"generator": generator_of(generator)})
    return apply(BERNOULLI_P, (input,), {"p": p, "generator": generator_of(generator)})


@public(function=False)
def bernoulli_(self, p=0.5, *, generator=None):
    """Matches `Tensor.bernoulli_`: `p` a number or a tensor of probabilities."""
    gen = generator_of(generator)
    if isinstance(p, Tensor):
        return apply_inplace(BERNOULLI_TENSOR_, (self, p), {"generator": gen}, name="bernoulli_")
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    return apply_inplace(BERNOULLI_SCALAR_, (self,), {"p": p, "generator": gen}, name="bernoulli_")


@public
def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Matches `torch.multinomial`: category indices drawn from rows of weights."""
    _check_multinomial(input, num_samples, replacement)
    attrs = {
        "num_samples": int(num_samples),
        "replacement": bool(replacement),
        "generator": generator_of(generator),
    }
    return apply(MULTINOMIAL, (input,), attrs)


def _check_multinomial(input, num_samples, replacement):
    probs = input._data
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: {input.dtype._legacy}"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > probs.shape[-1]:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if not (np.isfinite(probs) & (probs >= 0)).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (probs.sum(axis=-1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
