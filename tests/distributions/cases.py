"""The distributions every parity test runs over: one constructor on the same NumPy parameters
for dyngrad and torch, and values to score."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

R = np.random.default_rng(2024)


def _uniform(low, high, *shape):
    return R.uniform(low, high, shape)


def _spd(n, *batch):
    a = R.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _simplex(*shape):
    p = R.uniform(0.1, 1.0, shape)
    return p / p.sum(-1, keepdims=True)


@dataclass
class Case:
    """`make(lib.distributions, *param_tensors)` builds the distribution; `value` is scored."""

    name: str
    make: object
    params: list
    value: np.ndarray
    value_dtype: str = "float64"
    unit_value: np.ndarray | None = None  # icdf's argument, in (0, 1)
    grad_params: tuple = field(default=())  # indices of params that take gradients

    def tensors(self, lib, requires_grad=True):
        out = []
        for i, p in enumerate(self.params):
            t = lib.tensor(p, dtype=lib.float64)
            out.append(t.requires_grad_(requires_grad and i in self.grad_params))
        return out

    def construct(self, lib, requires_grad=True, **kwargs):
        """(the distribution, the parameter tensors it was made from)."""
        params = self.tensors(lib, requires_grad)
        return self.make(lib.distributions, *params, **kwargs), params

    def build(self, lib, requires_grad=True, **kwargs):
        return self.construct(lib, requires_grad, **kwargs)[0]

    def value_tensor(self, lib):
        return lib.tensor(self.value, dtype=getattr(lib, self.value_dtype))


U = _uniform(0.05, 0.95, 4, 3)
LOW = _uniform(-1.0, 1.0, 3)
LOC3 = _uniform(-1.0, 1.0, 2, 3)
TRIL = np.linalg.cholesky(_spd(3))

CASES = [
    Case(
        "normal",
        lambda d, loc, scale: d.Normal(loc, scale),
        [_uniform(-1, 1, 3), _uniform(0.5, 2, 3)],
        _uniform(-2, 2, 4, 3),
        unit_value=U,
        grad_params=(0, 1),
    ),
    Case(
        "normal_broadcast",
        lambda d, loc, scale: d.Normal(loc, scale),
        [_uniform(-1, 1, 2, 1), _uniform(0.5, 2, 3)],
        _uniform(-2, 2, 2, 3),
        unit_value=U[:2],
        grad_params=(0, 1),
    ),
    Case(
        "bernoulli_probs",
        lambda d, p: d.Bernoulli(probs=p),
        [_uniform(0.1, 0.9, 3)],
        R.integers(0, 2, (4, 3)).astype(float),
        grad_params=(0,),
    ),
    Case(
        "bernoulli_logits",
        lambda d, x: d.Bernoulli(logits=x),
        [_uniform(-2, 2, 3)],
        R.integers(0, 2, (4, 3)).astype(float),
        grad_params=(0,),
    ),
    Case(
        "categorical_probs",
        lambda d, p: d.Categorical(probs=p),
        [_simplex(2, 4)],
        R.integers(0, 4, (5, 2)),
        value_dtype="int64",
        grad_params=(0,),
    ),
    Case(
        "categorical_logits",
        lambda d, x: d.Categorical(logits=x),
        [_uniform(-2, 2, 2, 4)],
        R.integers(0, 4, (5, 2)),
        value_dtype="int64",
        grad_params=(0,),
    ),
    Case(
        "one_hot_categorical",
        lambda d, p: d.OneHotCategorical(probs=p),
        [_simplex(2, 4)],
        np.eye(4)[R.integers(0, 4, (5, 2))],
        grad_params=(0,),
    ),
    Case(
        "uniform",
        lambda d, low, width: d.Uniform(low, low + width),
        [LOW, _uniform(1, 2, 3)],
        LOW + _uniform(0.1, 0.9, 4, 3),
        unit_value=U,
        grad_params=(0, 1),
    ),
    Case(
        "beta",
        lambda d, a, b: d.Beta(a, b),
        [_uniform(0.5, 3, 3), _uniform(0.5, 3, 3)],
        _uniform(0.05, 0.95, 4, 3),
        grad_params=(0, 1),
    ),
    Case(
        "gamma",
        lambda d, a, rate: d.Gamma(a, rate),
        [_uniform(0.5, 3, 3), _uniform(0.5, 2, 3)],
        _uniform(0.1, 4, 4, 3),
        grad_params=(0, 1),
    ),
    Case(
        "dirichlet",
        lambda d, a: d.Dirichlet(a),
        [_uniform(0.5, 3, 2, 3)],
        _simplex(4, 2, 3),
        grad_params=(0,),
    ),
    Case(
        "exponential",
        lambda d, rate: d.Exponential(rate),
        [_uniform(0.5, 2, 3)],
        _uniform(0.1, 4, 4, 3),
        unit_value=U,
        grad_params=(0,),
    ),
    Case(
        "laplace",
        lambda d, loc, scale: d.Laplace(loc, scale),
        [_uniform(-1, 1, 3), _uniform(0.5, 2, 3)],
        _uniform(-2, 2, 4, 3),
        unit_value=U,
        grad_params=(0, 1),
    ),
    Case(
        "mvn_scale_tril",
        lambda d, loc, tril: d.MultivariateNormal(loc, scale_tril=tril),
        [LOC3, TRIL],
        _uniform(-2, 2, 4, 2, 3),
        grad_params=(0, 1),
    ),
    Case(
        "mvn_covariance",
        lambda d, loc, cov: d.MultivariateNormal(loc, covariance_matrix=cov),
        [LOC3, _spd(3, 2)],
        _uniform(-2, 2, 4, 2, 3),
        grad_params=(0, 1),
    ),
    Case(
        "mvn_precision",
        lambda d, loc, prec: d.MultivariateNormal(loc, precision_matrix=prec),
        [LOC3[0], _spd(3)],
        _uniform(-2, 2, 4, 3),
        grad_params=(0, 1),
    ),
    Case(
        "independent_normal",
        lambda d, loc, scale: d.Independent(d.Normal(loc, scale), 1),
        [LOC3, _uniform(0.5, 2, 2, 3)],
        _uniform(-2, 2, 4, 2, 3),
        grad_params=(0, 1),
    ),
]
CASES += [
    Case(
        "log_normal",
        lambda d, loc, scale: d.LogNormal(loc, scale),
        [_uniform(-1, 1, 3), _uniform(0.3, 1, 3)],
        _uniform(0.2, 4, 4, 3),
        unit_value=U,
        grad_params=(0, 1),
    ),
    Case(
        "tanh_normal",
        lambda d, loc, scale: d.TransformedDistribution(
            d.Normal(loc, scale), [d.AffineTransform(0.5, 2.0), d.TanhTransform()]
        ),
        [_uniform(-1, 1, 3), _uniform(0.3, 1, 3)],
        _uniform(-0.9, 0.9, 4, 3),
        grad_params=(0, 1),
    ),
    Case(
        "logistic_normal",
        lambda d, loc, scale: d.TransformedDistribution(d.Normal(loc, scale), d.SigmoidTransform()),
        [_uniform(-1, 1, 3), _uniform(0.3, 1, 3)],
        _uniform(0.1, 0.9, 4, 3),
        unit_value=U,
        grad_params=(0, 1),
    ),
    Case(
        "reflected_exponential",
        lambda d, rate: d.TransformedDistribution(
            d.Exponential(rate), d.AffineTransform(1.0, -2.0)
        ),
        [_uniform(0.5, 2, 3)],
        _uniform(-3, 0.9, 4, 3),
        unit_value=U,
        grad_params=(0,),
    ),
]
CASES += [
    Case(
        "poisson",
        lambda d, rate: d.Poisson(rate),
        [_uniform(0.5, 4, 3)],
        R.integers(0, 6, (4, 3)).astype(float),
        grad_params=(0,),
    ),
    Case(
        "cauchy",
        lambda d, loc, scale: d.Cauchy(loc, scale),
        [_uniform(-1, 1, 3), _uniform(0.5, 2, 3)],
        _uniform(-3, 3, 4, 3),
        unit_value=U,
        grad_params=(0, 1),
    ),
    Case(
        "half_normal",
        lambda d, scale: d.HalfNormal(scale),
        [_uniform(0.5, 2, 3)],
        _uniform(0.1, 3, 4, 3),
        unit_value=U,
        grad_params=(0,),
    ),
]
IDS = [c.name for c in CASES]
