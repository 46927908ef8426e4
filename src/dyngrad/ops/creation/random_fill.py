"""Random sampling into tensors: `normal_`, `uniform_`, `bernoulli`, `multinomial`, `random_`, ...

Streams come from `runtime.random` (same seeds give the same numbers here, not PyTorch's
numbers). In-place fills on a tensor in the graph record a node with a zero gradient, as
PyTorch's `NormalBackward0` and friends do.
"""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...runtime import dtypes
from ...runtime.random import rng_of
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public


def _zeros(g):
    return g.new_zeros(g.shape)


def _legacy(x) -> str:
    return dtypes.from_numpy_dtype(x.dtype)._legacy


def _require_float(x, kernel):
    if not dtypes.from_numpy_dtype(x.dtype).is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_legacy(x)}'")


# ---- forwards on arrays ---------------------------------------------------------------------


def _normal(xp, x, *, mean, std, rng):
    _require_float(x, "normal_kernel_cpu")
    return rng.normal(mean, std, x.shape).astype(x.dtype)


def _uniform(xp, x, *, low, high, rng):
    _require_float(x, "check_uniform_bounds")
    return rng.uniform(low, high, x.shape).astype(x.dtype)


def _exponential(xp, x, *, lambd, rng):
    return rng.exponential(1 / lambd, x.shape).astype(x.dtype)


def _cauchy(xp, x, *, median, sigma, rng):
    return (median + sigma * rng.standard_cauchy(x.shape)).astype(x.dtype)


def _log_normal(xp, x, *, mean, std, rng):
    return rng.lognormal(mean, std, x.shape).astype(x.dtype)


def _geometric(xp, x, *, p, rng):
    return rng.geometric(p, x.shape).astype(x.dtype)


def _random(xp, x, *, low, high, rng):
    # integers in [low, high); drawn as int64 so float tensors get exact integers too
    return rng.integers(low, high, x.shape, dtype=np.int64, endpoint=False).astype(x.dtype)


def _bernoulli_scalar(xp, x, *, p, rng):
    return (rng.random(x.shape) < p).astype(x.dtype)


def _bernoulli_tensor(xp, x, p, *, rng):
    return (rng.random(x.shape) < p).astype(x.dtype)


def _bernoulli(xp, p, *, rng):
    _require_float(p, "bernoulli_tensor_cpu_p_")
    if not ((p >= 0) & (p <= 1)).all():
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could "
            "this error message be improved?  If so, please report an "
            "enhancement request to PyTorch.)"
        )
    return (rng.random(p.shape) < p).astype(p.dtype)


def _multinomial(xp, probs, *, num_samples, replacement, rng):
    rows = probs.reshape(-1, probs.shape[-1]).astype(np.float64)
    if replacement:
        cdf = np.cumsum(rows, axis=1)
        cdf /= cdf[:, -1:]
        u = rng.random((rows.shape[0], num_samples))
        out = np.stack([np.searchsorted(c, r, side="right") for c, r in zip(cdf, u)])
        out = np.minimum(out, rows.shape[1] - 1)
    else:
        # exponential race: p / E with E ~ Exp(1); the k largest keys are a draw without
        # replacement, and categories of probability 0 come last
        keys = rows / rng.exponential(1.0, rows.shape)
        out = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    return out.reshape(probs.shape[:-1] + (num_samples,)).astype(np.int64)


# ---- the table ------------------------------------------------------------------------------

NORMAL = defop("normal_", _normal, {"x": _zeros}, node="NormalBackward0")
UNIFORM = defop("uniform_", _uniform, {"x": _zeros}, node="UniformBackward0")
EXPONENTIAL = defop("exponential_", _exponential, {"x": _zeros}, node="ExponentialBackward0")
CAUCHY = defop("cauchy_", _cauchy, {"x": _zeros}, node="CauchyBackward0")
LOG_NORMAL = defop("log_normal_", _log_normal, {"x": _zeros}, node="LogNormalBackward0")
GEOMETRIC = defop("geometric_", _geometric, {"x": _zeros}, node="GeometricBackward0")
# PyTorch numbers random_'s nodes by signature: (from, to), (to), ()
RANDOM = {
    n: defop(f"random_{n}", _random, {"x": _zeros}, node=f"RandomBackward{n}") for n in range(3)
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


BERNOULLI_P = defop(
    "bernoulli_p",
    _bernoulli_scalar,
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
    attrs = {"mean": mean, "std": std, "rng": rng_of(generator)}
    return apply_inplace(NORMAL, (self,), attrs, name="normal_")


@public(function=False)
def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kwargs):
    """Matches `Tensor.uniform_(from=0, to=1)`."""
    from_ = kwargs.pop("from", from_)
    if from_ > to:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={from_:g} > to={to:g}"
        )
    attrs = {"low": from_, "high": to, "rng": rng_of(generator)}
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
    attrs = {"lambd": lambd, "rng": rng_of(generator)}
    return apply_inplace(EXPONENTIAL, (self,), attrs, name="exponential_")


@public(function=False)
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Matches `Tensor.cauchy_`."""
    attrs = {"median": median, "sigma": sigma, "rng": rng_of(generator)}
    return apply_inplace(CAUCHY, (self,), attrs, name="cauchy_")


@public(function=False)
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Matches `Tensor.log_normal_` (PyTorch's defaults: mean 1, std 2)."""
    attrs = {"mean": mean, "std": std, "rng": rng_of(generator)}
    return apply_inplace(LOG_NORMAL, (self,), attrs, name="log_normal_")


@public(function=False)
def geometric_(self, p, *, generator=None):
    """Matches `Tensor.geometric_`: the number of trials up to the first success."""
    return apply_inplace(GEOMETRIC, (self,), {"p": p, "rng": rng_of(generator)}, name="geometric_")


@public(function=False)
def random_(self, *bounds, generator=None, **kwargs):
    """Matches `Tensor.random_()`, `random_(to)` and `random_(from, to)` (`to=None`: the max)."""
    bounds = bounds + tuple(kwargs.pop(k) for k in ("from", "to") if k in kwargs)
    if not bounds:
        n, low, high = 2, 0, _random_max(self) + 1
    elif len(bounds) == 1:
        n, low, high = 1, 0, bounds[0]
    else:
        low, to = bounds
        n, high = 0, _random_max(self) + 1 if to is None else to
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    attrs = {"low": int(low), "high": int(high), "rng": rng_of(generator)}
    return apply_inplace(RANDOM[n], (self,), attrs, name="random_")


def _random_max(t: Tensor) -> int:
    # integers: the type's maximum; floats: the largest run of exact integers, 2^digits
    d = t._data.dtype
    if d.kind == "b":
        return 1
    if d.kind in "iu":
        return int(np.iinfo(d).max)
    return 2 ** {np.float16: 11, np.float32: 24, np.float64: 53}.get(d.type, 8)


@public
def bernoulli(input, p=None, *, generator=None):
    """Matches `torch.bernoulli`: 1 with probability `input` (or `p`), else 0."""
    if p is None:
        return apply(BERNOULLI, (input,), {"rng": rng_of(generator)})
    return apply(BERNOULLI_P, (input,), {"p": p, "rng": rng_of(generator)})


@public(function=False)
def bernoulli_(self, p=0.5, *, generator=None):
    """Matches `Tensor.bernoulli_`: `p` a number or a tensor of probabilities."""
    rng = rng_of(generator)
    if isinstance(p, Tensor):
        return apply_inplace(BERNOULLI_TENSOR_, (self, p), {"rng": rng}, name="bernoulli_")
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    return apply_inplace(BERNOULLI_SCALAR_, (self,), {"p": p, "rng": rng}, name="bernoulli_")


@public
def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Matches `torch.multinomial`: category indices drawn from rows of weights."""
    _check_multinomial(input, num_samples, replacement)
    attrs = {
        "num_samples": int(num_samples),
        "replacement": bool(replacement),
        "rng": rng_of(generator),
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
