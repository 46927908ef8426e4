"""After the same seed, dyngrad draws PyTorch's CPU numbers bit for bit (Note [torch's CPU
random streams]): every random function, both float types, the sizes where PyTorch switches
algorithm, and a second call that continues the stream (and the cached normal)."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

pytestmark = pytest.mark.filterwarnings("ignore:.*out of bounds")

SEEDS = [0, 1, 1234, 2**32 + 7, 2**63 + 5]
SIZES = [0, 1, 2, 15, 16, 17, 31, 33, 100, 1000]
DTYPES = ["float32", "float64"]


def _draw(lib, seed, expr, generator=False):
    """`expr` twice after seeding (the default generator, or a Generator passed in as `g`),
    then one more `rand` to show where the stream ended."""
    env = {"t": lib}
    if generator:
        env["g"] = lib.Generator().manual_seed(seed)
    else:
        lib.manual_seed(seed)
        env["g"] = None
    first = eval(expr, env)
    second = eval(expr, env)
    after = lib.rand(3, generator=env["g"])
    return _flat([first, second, after])


def _flat(values) -> list:
    if isinstance(values, (list, tuple)):
        return [a for v in values for a in _flat(v)]
    return [_array(values)]


def _array(x):
    if hasattr(x, "numpy"):
        x = x.detach()
        return (x.float() if str(x.dtype).endswith("bfloat16") else x).numpy()
    return np.asarray(x)


def _same(expr, torch, seeds=SEEDS, generator=False):
    for seed in seeds:
        ours = _draw(dyngrad, seed, expr, generator)
        theirs = _draw(torch, seed, expr, generator)
        for a, b in zip(ours, theirs):
            assert a.dtype == b.dtype, (expr, seed)
            np.testing.assert_array_equal(a, b, err_msg=f"{expr} seed={seed}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_rand_randn_match_torch(n, dtype, torch):
    _same(f"t.rand({n}, dtype=t.{dtype}, generator=g)", torch)
    _same(f"t.randn({n}, dtype=t.{dtype}, generator=g)", torch)
    _same(f"t.randn(2, {n}, dtype=t.{dtype}, generator=g)", torch, seeds=SEEDS[:2], generator=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_large_tensors_match_torch(dtype, torch):
    _same(f"t.randn(100_000, dtype=t.{dtype})", torch, seeds=[3])
    _same(f"t.empty(100_003, dtype=t.{dtype}).normal_(0.5, 3.0)", torch, seeds=[4])
    _same(f"t.empty(100_000, dtype=t.{dtype}).uniform_(-2.5, 0.75)", torch, seeds=[5])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [3, 16, 37, 1000])
@pytest.mark.parametrize(
    "call",
    [
        "normal_()",
        "normal_(2.0, 0.5)",
        "normal_(-1.25, 3.0)",
        "normal_(0.0, 0.02)",
        "uniform_()",
        "uniform_(-3, 5)",
        "uniform_(-0.1, 0.1)",
        "uniform_(2, 2)",
        "exponential_()",
        "exponential_(2.5)",
        "bernoulli_()",
        "bernoulli_(0.2)",
        "random_()",
        "random_(7)",
        "random_(-4, 9)",
        "random_(0, 2**40)",
        "random_(-2**63, None)",
        "random_(3, None)",
        "cauchy_()",
        "cauchy_(1.5, 0.5)",
        "log_normal_()",
        "geometric_(0.3)",
    ],
)
def test_inplace_fills_match_torch(call, n, dtype, torch):
    _same(f"t.empty({n}, dtype=t.{dtype}).{call}", torch, seeds=SEEDS[:3])


@pytest.mark.parametrize(
    "dtype", ["int64", "int32", "int16", "int8", "uint8", "bool", "float16", "bfloat16"]
)
def test_random_on_other_types_matches_torch(dtype, torch):
    _same(f"t.empty(50, dtype=t.{dtype}).random_()", torch, seeds=SEEDS[:2])
    top = 2 if dtype == "bool" else 100
    _same(f"t.empty(50, dtype=t.{dtype}).random_(0, {top})", torch, seeds=SEEDS[:2])
    _same(f"t.empty(50, dtype=t.{dtype}).bernoulli_(0.3)", torch, seeds=SEEDS[:2])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_types_match_torch(dtype, torch):
    for n in (5, 40):
        _same(f"t.rand({n}, dtype=t.{dtype})", torch, seeds=SEEDS[:2])
        _same(f"t.randn({n}, dtype=t.{dtype})", torch, seeds=SEEDS[:2])
        _same(f"t.empty({n}, dtype=t.{dtype}).uniform_(-1, 3)", torch, seeds=SEEDS[:2])


@pytest.mark.parametrize(
    "expr",
    [
        "t.randint(10, (5,), generator=g)",
        "t.randint(-3, 1000, (20, 7), generator=g)",
        "t.randint(0, 2**40, (9,), generator=g)",
        "t.randint(-2**50, 2**50, (9,), generator=g)",
        "t.randint(5, (6,), dtype=t.float32, generator=g)",
        "t.randint(0, 2**35, (6,), dtype=t.float64, generator=g)",
        "t.randint(0, 200, (6,), dtype=t.uint8, generator=g)",
        "t.randint(0, 2, (6,), dtype=t.bool, generator=g)",
        "t.randperm(0, generator=g)",
        "t.randperm(1, generator=g)",
        "t.randperm(17, generator=g)",
        "t.randperm(1000, generator=g)",
        "t.randperm(20, dtype=t.float32, generator=g)",
    ],
)
def test_integers_and_permutations_match_torch(expr, torch):
    _same(expr, torch)
    _same(expr, torch, seeds=SEEDS[:2], generator=True)


def test_randperm_of_a_large_n_matches_torch(torch):
    _same("t.randperm(100_000)", torch, seeds=[11])


@pytest.mark.parametrize(
    "expr",
    [
        "t.normal(2.0, 3.0, (20,), generator=g)",
        "t.normal(2.0, 3.0, size=(5,), dtype=t.float64, generator=g)",
        "t.normal(t.arange(20.0), 0.5, generator=g)",
        "t.normal(t.arange(6.0), 2.0, generator=g)",
        "t.normal(1.5, t.arange(20.0) / 10, generator=g)",
        "t.normal(t.arange(20.0), t.arange(20.0) / 10, generator=g)",
        "t.normal(t.zeros(3, 1, dtype=t.float64), t.ones(4, dtype=t.float64), generator=g)",
    ],
)
def test_torch_normal_forms_match_torch(expr, torch):
    _same(expr, torch)


@pytest.mark.parametrize(
    "expr",
    [
        "t.bernoulli(t.linspace(0, 1, 40), generator=g)",
        "t.bernoulli(t.linspace(0, 1, 40, dtype=t.float64), generator=g)",
        "t.bernoulli(t.full((3, 4), 0.3), 0.7, generator=g)",
        "t.empty(5, 4).bernoulli_(t.linspace(0, 1, 4), generator=g)",
        "t.empty(6, dtype=t.float64).bernoulli_(t.linspace(0, 1, 6), generator=g)",
        "t.multinomial(t.tensor([0.1, 0.5, 0.2, 0.2]), 1, generator=g)",
        "t.multinomial(t.tensor([0.1, 0.5, 0.0, 0.4]), 3, generator=g)",
        "t.multinomial(t.tensor([1.0, 3.0, 2.0, 0.5]), 20, replacement=True, generator=g)",
        "t.multinomial(t.rand(3, 6), 4, generator=g)",
        "t.multinomial(t.rand(3, 6, dtype=t.float64), 9, True, generator=g)",
        "t.multinomial(t.rand(2, 1000), 1, generator=g)",
        # layouts: bernoulli writes a contiguous output, multinomial's noise follows p's
        "t.bernoulli(t.rand(4, 5).t(), generator=g)",
        "t.bernoulli(t.rand(4, 1).expand(4, 6), generator=g)",
        "t.bernoulli(t.rand(4, 5).t(), 0.3, generator=g)",
        "t.rand(5, 4).t().bernoulli_(t.rand(4, 1), generator=g)",
        "t.multinomial(t.rand(5, 4).t(), 2, generator=g)",
        "t.multinomial(t.rand(5, 4).t(), 3, True, generator=g)",
    ],
)
def test_bernoulli_and_multinomial_match_torch(expr, torch):
    _same(expr, torch)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["rand_like", "randn_like"])
def test_like_functions_match_torch_and_follow_the_layout(name, dtype, torch):
    for shape in ("(4, 5)", "(20, 3)"):
        _same(f"t.{name}(t.zeros{shape}.to(t.{dtype}), generator=g)", torch)
        _same(f"t.{name}(t.zeros{shape}.to(t.{dtype}).t(), generator=g)", torch)
    _same(f"t.randint_like(t.zeros(6, 4, dtype=t.{dtype}), 3, 9, generator=g)", torch)
    _same("t.randint_like(t.zeros(6, 4).t(), 10, generator=g)", torch)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fills_of_views_follow_memory_order(dtype, torch):
    base = f"t.zeros(8, 6, dtype=t.{dtype})"
    _same(f"{base}.t().normal_(generator=g)", torch)
    _same(f"{base}.t().uniform_(-1, 1, generator=g)", torch)
    _same(f"{base}[:, ::2].normal_(generator=g)", torch)
    _same(f"{base}.t().bernoulli_(0.4, generator=g)", torch)
    _same(f"t.zeros(4, 5, 6, dtype=t.{dtype}).permute(2, 0, 1).normal_(generator=g)", torch)


def test_complex_draws_match_torch(torch):
    _same("t.randn(20, dtype=t.complex64)", torch)
    _same("t.randn(5, dtype=t.complex128)", torch)
    _same("t.rand(7, dtype=t.complex64)", torch)


def test_the_cached_normal_crosses_calls_and_ops(torch):
    # an odd scalar Box-Muller count leaves a value that the next small normal uses first
    expr = "[t.randn(3, dtype=t.float64), t.rand(2), t.randn(1), t.empty(5).normal_(1, 2)]"
    _same(expr, torch)


def test_a_seed_resets_the_cached_normal(torch):
    for lib in (dyngrad, torch):
        lib.manual_seed(9)
        lib.randn(1)
        lib.manual_seed(9)
        assert lib.randn(2).tolist() == (lib.manual_seed(9), lib.randn(2))[1].tolist()
    _same("t.randn(1)", torch, seeds=[9])


@pytest.mark.parametrize(
    "expr",
    [
        "D.Normal(t.tensor([0.5, 1.0]), t.tensor([2.0, 0.1])).sample((20,))",
        "D.Normal(t.zeros(3), t.ones(3)).rsample((7,))",
        "D.Uniform(t.tensor([0.0]), t.tensor([3.0])).rsample((9,))",
        "D.Bernoulli(t.tensor([0.2, 0.7])).sample((10,))",
        "D.Categorical(t.tensor([0.1, 0.6, 0.3])).sample((12,))",
        "D.OneHotCategorical(t.tensor([0.1, 0.6, 0.3])).sample((4,))",
        "D.Exponential(t.tensor([2.0])).rsample((8,))",
        "D.Cauchy(t.tensor([0.0]), t.tensor([1.0])).rsample((5,))",
        "D.MultivariateNormal(t.zeros(2), t.eye(2)).sample((4,))",
    ],
)
def test_distribution_samples_match_torch(expr, torch):
    _same(expr.replace("D.", "t.distributions."), torch, seeds=SEEDS[:2])


@pytest.mark.parametrize("n", [17, 20, 31])
def test_a_tail_redraw_leaves_no_longer_buffer(lib, n):
    # the last 16 places are redrawn: the result still owns exactly n elements
    for dtype in (lib.float32, lib.float64):
        assert lib.randn(n, dtype=dtype).untyped_storage().nbytes() == n * dtype.itemsize
