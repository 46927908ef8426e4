"""The gamma family, torch.special, Cholesky and triangular solves, and the distribution samplers:
special values, accuracy on dense grids, errors and warnings, against torch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad

INF, NAN = float("inf"), float("nan")
SPECIAL = [0.0, -0.0, -1.0, -2.0, -2.5, 1.0, 2.0, 0.5, INF, -INF, NAN, 1e-300, 1e300, -1e-20]


def _both(torch, fn, values, dtype="float64"):
    ours = fn(dyngrad, dyngrad.tensor(values, dtype=getattr(dyngrad, dtype)))
    theirs = fn(torch, torch.tensor(values, dtype=getattr(torch, dtype)))
    return ours.numpy(), theirs.numpy()


@pytest.mark.parametrize(
    "name,fn",
    [
        ("lgamma", lambda t, x: t.lgamma(x)),
        ("digamma", lambda t, x: t.digamma(x)),
        ("trigamma", lambda t, x: t.polygamma(1, x)),
        ("polygamma3", lambda t, x: t.polygamma(3, x)),
    ],
)
def test_special_values_match_torch(name, fn, torch):
    with np.errstate(all="ignore"):
        ours, theirs = _both(torch, fn, SPECIAL)
    # PyTorch's trigamma is a short series (~1e-10 relative); the rest agree to rounding
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, equal_nan=True)


@pytest.mark.parametrize(
    "fn",
    [
        lambda t, x: t.lgamma(x),
        lambda t, x: t.digamma(x),
        lambda t, x: t.polygamma(2, x),
        lambda t, x: t.mvlgamma(x, 4),
    ],
)
def test_dense_grids_match_torch(fn, torch):
    rng = np.random.default_rng(0)
    grid = np.concatenate(
        [rng.uniform(1.6, 30, 3000), 10 ** rng.uniform(-5, 5, 500), rng.uniform(-6, 0, 500) + 0.01]
    )
    for dtype, rtol in (("float64", 1e-12), ("float32", 2e-5)):
        if dtype == "float32":  # PyTorch rounds x - i/2 to float32 first: poles amplify it
            grid = grid[grid > 1.6]
        ours, theirs = _both(torch, fn, grid, dtype)
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=1e-12)


def test_lgamma_is_exact_at_its_roots_and_equal_on_both_paths():
    # small arrays take C's lgamma, large ones the vectorized series: they agree
    values = np.array([1.0, 2.0, 0.75, 1.25, 2.4, 3.7, 0.01, -0.5, -3.5, 25.0])
    small = dyngrad.lgamma(dyngrad.tensor(values, dtype=dyngrad.float64)).numpy()
    large = dyngrad.lgamma(dyngrad.tensor(np.tile(values, 10), dtype=dyngrad.float64)).numpy()
    np.testing.assert_allclose(large[:10], small, rtol=1e-14, atol=1e-16)
    assert small[0] == 0.0 and small[1] == 0.0 and large[0] == 0.0 and large[1] == 0.0


def test_gamma_family_types_inplace_and_errors_match_torch(torch):
    for lib in (dyngrad, torch):
        ints = lib.tensor([1, 2, 3])
        assert lib.lgamma(ints).dtype == lib.float32 and lib.digamma(ints).dtype == lib.float32
        x = lib.tensor([1.5, 2.5])
        np.testing.assert_allclose(x.clone().polygamma_(2).numpy(), lib.polygamma(2, x).numpy())
        np.testing.assert_allclose(x.clone().mvlgamma_(2).numpy(), lib.mvlgamma(x, 2).numpy())
        np.testing.assert_allclose(x.clone().lgamma_().numpy(), x.lgamma().numpy())
        with pytest.raises(RuntimeError, match=r"^polygamma\(n, x\) does not support negative n"):
            lib.polygamma(-1, x)
        with pytest.raises(TypeError, match=r"argument 'n' \(position 1\) must be int, not float"):
            lib.polygamma(1.5, x)
        with pytest.raises(RuntimeError, match="^p has to be greater than or equal to 1$"):
            lib.mvlgamma(x, 0)
        with pytest.raises(NotImplementedError, match='"igamma_cpu" not implemented for'):
            lib.igamma(ints, ints)


def test_igamma_special_values_and_missing_derivative_match_torch(torch):
    a = [0.0, 0.0, 1.0, INF, INF, -1.0, 1.0, NAN, 2.0, 0.0, 30.0, 0.5]
    x = [0.0, 1.0, 0.0, 1.0, INF, 1.0, -1.0, 1.0, INF, INF, 25.0, 40.0]
    for name in ("gammainc", "gammaincc"):
        ours = getattr(dyngrad.special, name)(dyngrad.tensor(a), dyngrad.tensor(x)).numpy()
        theirs = getattr(torch.special, name)(torch.tensor(a), torch.tensor(x)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, equal_nan=True)
    for lib in (dyngrad, torch):
        shape = lib.tensor([2.0], requires_grad=True)
        with pytest.raises(
            NotImplementedError, match=r"^the derivative for 'igamma: input' is not implemented\.$"
        ):
            lib.igamma(shape, lib.tensor([1.0])).backward()


SPECIAL_NAMES = [
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammaln",
    "log1p",
    "logit",
    "ndtr",
    "psi",
    "round",
    "sinc",
]


@pytest.mark.parametrize("name", SPECIAL_NAMES)
def test_special_namespace_matches_torch(name, torch):
    values = [0.1, 0.5, 0.9, 1.7]
    outs = []
    for lib in (dyngrad, torch):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        out = getattr(lib.special, name)(x)
        out.sum().backward()
        outs.append((out.detach().numpy(), x.grad.numpy(), out.grad_fn.name()))
    (v1, g1, n1), (v2, g2, n2) = outs
    np.testing.assert_allclose(v1, v2, rtol=1e-12)
    np.testing.assert_allclose(g1, g2, rtol=1e-8)  # PyTorch's trigamma: ~1e-10 relative
    assert n1 == n2


def test_special_reductions_and_two_argument_functions_match_torch(torch):
    calls = [
        lambda s, t, x: s.softmax(x, 0),
        lambda s, t, x: s.log_softmax(x, -1),
        lambda s, t, x: s.logsumexp(x, 0),
        lambda s, t, x: s.polygamma(2, x),
        lambda s, t, x: s.multigammaln(x + 2, 3),
        lambda s, t, x: s.xlogy(x, x + 1),
        lambda s, t, x: s.xlog1py(x, x),
        lambda s, t, x: s.gammainc(x, x + 1),
        lambda s, t, x: s.gammaincc(x, 2.0 * x),
        lambda s, t, x: s.logit(x, eps=0.2),
    ]
    for call in calls:
        ours = call(dyngrad.special, dyngrad, dyngrad.tensor([0.1, 0.5, 0.9])).numpy()
        theirs = call(torch.special, torch, torch.tensor([0.1, 0.5, 0.9])).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=2e-6)


# ---- Cholesky and triangular solves -----------------------------------------------------------


def _errors(torch, call):
    out = []
    for lib in (dyngrad, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                call(lib)
        out.append((type(info.value).__name__, str(info.value)))
    return out


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.linalg.cholesky(t.tensor([[1.0, 2.0], [2.0, 1.0]])),
        lambda t: t.linalg.cholesky(t.stack([t.eye(2), t.tensor([[1.0, 2.0], [2.0, 1.0]])])),
        lambda t: t.linalg.cholesky(-t.eye(3).expand(1, 3, 3)),
        lambda t: t.linalg.cholesky(t.ones(2, 3)),
        lambda t: t.linalg.cholesky(t.ones(3)),
        lambda t: t.linalg.cholesky(t.eye(2, dtype=t.long)),
        lambda t: t.linalg.cholesky_ex(t.tensor([[1.0, 2.0], [2.0, 1.0]]), check_errors=True),
        lambda t: t.cholesky(t.tensor([[1.0, 2.0], [2.0, 1.0]])),
        lambda t: t.linalg.solve_triangular(t.eye(2), t.ones(2, 2)),
        lambda t: t.linalg.solve_triangular(t.ones(2, 3), t.ones(2, 2), upper=True),
        lambda t: t.linalg.solve_triangular(t.eye(2), t.ones(3, 2), upper=True),
        lambda t: t.linalg.solve_triangular(t.eye(2), t.ones(3, 3), upper=True, left=False),
        lambda t: t.linalg.solve_triangular(t.eye(2), t.ones(2), upper=True),
        lambda t: t.linalg.solve_triangular(
            t.eye(2, dtype=t.long), t.ones(2, 2, dtype=t.long), upper=True
        ),
        lambda t: t.cholesky_solve(t.ones(2, 3), t.eye(2, dtype=t.float64)),
        lambda t: t.cholesky_solve(t.ones(2, 3), t.eye(3)),
        lambda t: t.cholesky_inverse(t.ones(2, 3)),
        lambda t: t.triangular_solve(t.ones(3, 2), t.eye(2)),
    ],
)
def test_linalg_errors_match_torch(call, torch):
    ours, theirs = _errors(torch, call)
    assert ours == theirs


def test_cholesky_ex_reports_the_failing_minor_and_partial_factor_as_torch(torch):
    a = [[[4.0, 2.0, 1.0], [2.0, 1.0, 0.0], [1.0, 0.0, 3.0]], np.eye(3) * 2]
    ours = dyngrad.linalg.cholesky_ex(dyngrad.tensor(a))
    theirs = torch.linalg.cholesky_ex(torch.tensor(a))
    np.testing.assert_array_equal(ours.info.numpy(), theirs.info.numpy())
    assert ours.info.dtype == dyngrad.int32
    np.testing.assert_allclose(ours.L.numpy(), theirs.L.numpy(), rtol=1e-6)
    assert isinstance(dyngrad.linalg.LinAlgError("x"), RuntimeError)


def test_deprecated_linalg_functions_warn_once_as_torch(torch):
    from dyngrad.ops.linalg import cholesky as linalg_cholesky

    linalg_cholesky._warned.clear()
    spd = dyngrad.tensor([[2.0, 1.0], [1.0, 2.0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dyngrad.cholesky(spd)
        dyngrad.cholesky(spd)
        dyngrad.triangular_solve(dyngrad.ones(2, 1), spd)
    assert [str(w.message).split("\n")[0] for w in caught] == [
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in "
        "a future PyTorch release.",
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will "
        "be removed in a future PyTorch release.",
    ]


def test_singular_triangular_systems_give_inf_and_nan_as_torch(torch):
    ours, theirs = (
        lib.linalg.solve_triangular(
            lib.tensor([[0.0, 0.0], [1.0, 0.0]]), lib.ones(2, 2), upper=False
        )
        for lib in (dyngrad, torch)
    )
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


# ---- samplers ---------------------------------------------------------------------------------


def test_sampler_edges_and_errors_match_torch(torch):
    tiny = np.finfo(np.float32).tiny
    edges = dyngrad._standard_gamma(dyngrad.tensor([-1.0, NAN, INF, 0.0, 1e-3])).numpy()
    np.testing.assert_array_equal(edges, [tiny, tiny, INF, tiny, tiny])
    draws = dyngrad._sample_dirichlet(dyngrad.full((500, 3), 0.5, dtype=dyngrad.float64))
    np.testing.assert_allclose(draws.sum(-1).numpy(), 1.0, rtol=1e-12)
    for lib in (dyngrad, torch):
        with pytest.raises(RuntimeError, match="^invalid Poisson rate, expected rate to be non"):
            lib.poisson(lib.tensor([-1.0]))
        with pytest.raises(NotImplementedError, match="\"poisson_cpu\" not implemented for 'Long'"):
            lib.poisson(lib.tensor([1, 2]))
        alpha = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="^derivative for aten::_sample_dirichlet is not"):
            lib._sample_dirichlet(alpha).sum().backward()
        with pytest.raises(NotImplementedError, match="^the derivative for '_standard_gamma_grad'"):
            lib._standard_gamma_grad(alpha, alpha.detach()).sum().backward()
        rates = lib.tensor([1.0, 2.0], requires_grad=True)
        counts = lib.poisson(rates)
        assert counts.grad_fn.name() == "PoissonBackward0"
        counts.sum().backward()
        assert not rates.grad.numpy().any()


def test_poisson_and_standard_gamma_draws_have_the_right_moments():
    dyngrad.manual_seed(11)
    rates = dyngrad.tensor([0.5, 4.0, 50.0], dtype=dyngrad.float64)
    counts = dyngrad.poisson(rates.expand(40_000, 3)).numpy()
    np.testing.assert_allclose(counts.mean(0), rates.numpy(), rtol=0.03)
    np.testing.assert_allclose(counts.var(0), rates.numpy(), rtol=0.06)
    draws = dyngrad._standard_gamma(rates.expand(40_000, 3)).numpy()
    np.testing.assert_allclose(draws.mean(0), rates.numpy(), rtol=0.03)
    np.testing.assert_allclose(draws.var(0), rates.numpy(), rtol=0.06)
