"""Samplers behind `torch.distributions`: `binomial`, `poisson`, `_standard_gamma`
(reparameterized, with `_standard_gamma_grad`), `_sample_dirichlet` and `_dirichlet_grad`.

Draws come from a NumPy generator seeded by the torch generator (`numpy_generator`): a seed
fixes them, but they are not PyTorch's numbers (its algorithms here are not reproduced).
"""

from __future__ import annotations

import numpy as np

from ...runtime import dtypes
from ...runtime.random import numpy_generator
from ..arrays import incomplete_gamma
from ..table.errors import broadcast_error
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public


def _require_float(x, kernel: str) -> None:
    if x.dtype.kind not in "fV":  # V: bfloat16, See Note [bfloat16 on demand]
        legacy = dtypes.from_numpy_dtype(x.dtype)._legacy
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{legacy}'")


def _tiny(dtype) -> float:
    return float(np.finfo(np.float32 if dtypes.is_bfloat16(dtype) else dtype).tiny)


def _gammas(rng, alpha):
    # standard gamma draws in float64; PyTorch returns the smallest normal number where the
    # draw underflows, and for concentrations that are not positive or are nan
    a = alpha.astype(np.float64)
    valid = a > 0
    draws = rng.standard_gamma(np.where(valid, a, 1.0))
    return np.where(valid, draws, 0.0)


# ---- forwards on arrays ---------------------------------------------------------------------


def _poisson_fwd(xp, rates, *, rng):
    _require_float(rates, "poisson_cpu")
    if not (rates >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return rng.poisson(rates.astype(np.float64)).astype(rates.dtype)


def _binomial_fwd(xp, count, prob, *, rng):
    # draws for a whole number of trials floor(count); PyTorch's edge cases: no trials or
    # prob <= 0 give 0, prob >= 1 gives count itself (even a fraction), nan prob gives nan
    if count.dtype not in (np.float32, np.float64):
        raise NotImplementedError(
            f"\"binomial_cpu\" not implemented for '{dtypes.from_numpy_dtype(count.dtype)._legacy}'"
        )
    n, p = np.broadcast_arrays(count.astype(np.float64), prob.astype(np.float64))
    drawn = (n > 0) & (p > 0) & (p < 1) & np.isfinite(n)
    trials = np.where(drawn, np.floor(np.where(drawn, n, 0)), 0).astype(np.int64)
    out = rng.binomial(trials, np.where(drawn, p, 0.5)).astype(np.float64)
    out = np.where(p >= 1, n, np.where(drawn, out, 0.0))
    out = np.where(np.isinf(n) & (p > 0), n, out)
    return np.where(np.isnan(p) | np.isnan(n), np.nan, out).astype(count.dtype)


def _standard_gamma_fwd(xp, alpha, *, rng):
    _require_float(alpha, "gamma_cpu")
    out = _gammas(rng, alpha).astype(alpha.dtype)
    return np.fmax(out, alpha.dtype.type(_tiny(alpha.dtype)))


def _sample_dirichlet_fwd(xp, alpha, *, rng):
    _require_float(alpha, "dirichlet")
    gammas = np.fmax(_gammas(rng, alpha), np.finfo(np.float64).tiny)
    out = (gammas / gammas.sum(-1, keepdims=True)).astype(alpha.dtype)
    return np.fmax(out, alpha.dtype.type(_tiny(alpha.dtype)))


def _standard_gamma_grad_fwd(xp, alpha, x):
    return incomplete_gamma.standard_gamma_grad(xp, alpha, x).astype(alpha.dtype)


def _dirichlet_grad_fwd(xp, x, alpha, total):
    return incomplete_gamma.dirichlet_grad(xp, x, alpha, total).astype(x.dtype)


# ---- the table ------------------------------------------------------------------------------


def _zeros(g):
    return g.new_zeros(g.shape)


def _not_implemented(name, error=RuntimeError, text="derivative for aten::{} is not implemented"):
    def formula(g):
        raise error(text.format(name))

    return formula


_BINOMIAL_NOT_IMPLEMENTED = _not_implemented("binomial")
BINOMIAL = defop(
    "binomial",
    _binomial_fwd,
    dict.fromkeys(("count", "prob"), _BINOMIAL_NOT_IMPLEMENTED),
    node="torch::autograd::NotImplemented",
)
POISSON = defop("poisson", _poisson_fwd, {"rates": _zeros}, node="PoissonBackward0")
# x = F^-1(u; alpha) moves with alpha as dx/dalpha = -(dF/dalpha) / f: the implicit
# reparameterization gradient, see Note [Implicit reparameterization] in incomplete_gamma.py
STANDARD_GAMMA = defop(
    "_standard_gamma",
    _standard_gamma_fwd,
    {"alpha": lambda g, alpha, out: g * apply(STANDARD_GAMMA_GRAD, (alpha, out))},
    node="StandardGammaBackward0",
)
STANDARD_GAMMA_GRAD = defop(
    "_standard_gamma_grad",
    _standard_gamma_grad_fwd,
    {
        "alpha": _not_implemented(
            "_standard_gamma_grad",
            NotImplementedError,
            "the derivative for '{}' is not implemented.",
        )
    },
    node="StandardGammaGradBackward0",
)
SAMPLE_DIRICHLET = defop(
    "_sample_dirichlet",
    _sample_dirichlet_fwd,
    {"alpha": _not_implemented("_sample_dirichlet")},
    node="torch::autograd::NotImplemented",
)
_DIRICHLET_GRAD_NOT_IMPLEMENTED = _not_implemented("_dirichlet_grad")
DIRICHLET_GRAD = defop(
    "_dirichlet_grad",
    _dirichlet_grad_fwd,
    dict.fromkeys(("x", "alpha", "total"), _DIRICHLET_GRAD_NOT_IMPLEMENTED),
    node="torch::autograd::NotImplemented",
)

# ---- the public surface ----------------------------------------------------------------------


@public(method=False)
def poisson(input, generator=None):
    """Matches `torch.poisson`: counts drawn with the rates in `input` (PoissonBackward0: 0)."""
    return apply(POISSON, (input,), {"rng": numpy_generator(generator)})


@public(method=False)
def binomial(count, prob, generator=None):
    """Matches `torch.binomial`: draws of Binomial(count, prob), broadcast. Seeded by
    dyngrad's generator, but not PyTorch's numbers for the same seed."""
    if not (count.is_floating_point()):
        raise ValueError(
            f"binomial only supports floating-point dtypes for count, got: {count.dtype._legacy}"
        )
    if prob.dtype != count.dtype:
        raise RuntimeError(f"Found dtype {prob.dtype._legacy} but expected {count.dtype._legacy}")
    error = broadcast_error((count.shape, prob.shape))
    if error is not None:
        raise error
    return apply(BINOMIAL, (count, prob), {"rng": numpy_generator(generator)})


@public(method=False)
def _standard_gamma(input, generator=None):
    """Matches `torch._standard_gamma`: Gamma(input, 1) draws, reparameterized."""
    return apply(STANDARD_GAMMA, (input,), {"rng": numpy_generator(generator)})


@public(method=False)
def _standard_gamma_grad(input, output):
    """Matches `torch._standard_gamma_grad(alpha, x)`: d x / d alpha of the draws x."""
    return apply(STANDARD_GAMMA_GRAD, (input, output))


@public(method=False)
def _sample_dirichlet(input, generator=None):
    """Matches `torch._sample_dirichlet`: Dirichlet(input) draws along the last dim."""
    return apply(SAMPLE_DIRICHLET, (input,), {"rng": numpy_generator(generator)})


@public(method=False)
def _dirichlet_grad(x, alpha, total):
    """Matches `torch._dirichlet_grad`: the scaled beta-marginal reparameterization gradient."""
    return apply(DIRICHLET_GRAD, (x, alpha, total))
