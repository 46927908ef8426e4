"""torch.special's orthogonal polynomials: values over grids of x and tensor degrees n (negative,
non-integer, nan and inf, past the closed-form and Hermite thresholds), in float64 and float32,
the Python-number overloads, dtypes, out=, and that PyTorch records no node for them."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

INF, NAN = float("inf"), float("nan")
NAMES = [
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
]


def _grid():
    rng = np.random.default_rng(0)
    # x = nan is left out: PyTorch's loop then returns an uninitialized value
    xs = np.concatenate(
        [rng.uniform(-1.2, 1.2, 120), rng.uniform(-5, 5, 40), [0, 1, -1, 0.5, -0.5, INF, -INF]]
    )
    ns = np.concatenate(
        [
            rng.integers(-3, 30, 40).astype(float),
            rng.uniform(-2, 15, 20),
            [0, 1, 2, 5, 6, 7, 8, 9, 100, 129, 513, 600, INF, -INF, NAN, 1e19, -1e19, 5.9, -0.5],
        ]
    )
    return np.meshgrid(xs, ns)


def _both(torch, name, x, n, dtype):
    ours = getattr(dyngrad.special, name)(
        dyngrad.tensor(x, dtype=getattr(dyngrad, dtype)),
        dyngrad.tensor(n, dtype=getattr(dyngrad, dtype)),
    )
    theirs = getattr(torch.special, name)(
        torch.tensor(x, dtype=getattr(torch, dtype)), torch.tensor(n, dtype=getattr(torch, dtype))
    )
    return ours.numpy(), theirs.numpy()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_values_match_torch(name, dtype, torch):
    x, n = _grid()
    ours, theirs = _both(torch, name, x, n, dtype)
    assert ours.dtype == theirs.dtype
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))
    assert np.array_equal(np.isinf(ours), np.isinf(theirs))
    finite = np.isfinite(theirs)
    o, t = ours[finite].astype(np.float64), theirs[finite].astype(np.float64)
    # the recurrences run in PyTorch's order (float32 bit for bit); the closed forms
    # cos(n acos x) carry n times the rounding of acos
    eps = 1e-14 if dtype == "float64" else 1e-6
    degree = np.maximum(np.abs(np.nan_to_num(n[finite], posinf=0, neginf=0)), 1)
    tol = 4 * eps * degree * np.maximum(np.abs(t), 1.0)
    assert np.all(np.abs(o - t) <= tol), np.max(np.abs(o - t) / tol)


@pytest.mark.parametrize(
    "name",
    [
        "hermite_polynomial_h",
        "hermite_polynomial_he",
        "laguerre_polynomial_l",
        "legendre_polynomial_p",
    ],
)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_recurrences_are_bit_exact(name, dtype, torch):
    # no closed form: the three-term recurrence with PyTorch's fused multiply-add throughout
    x, n = _grid()
    ours, theirs = _both(torch, name, x, n, dtype)
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("name", NAMES)
def test_overloads_dtypes_and_no_node_match_torch(name, lib):
    fn = getattr(lib.special, name)
    x = lib.tensor([0.3, -0.6, 1.7], dtype=lib.float64, requires_grad=True)
    y = fn(x, 3)
    assert y.dtype == lib.float64 and y.grad_fn is None and not y.requires_grad
    ints = lib.tensor([1, 2, 3])
    assert fn(ints, 2).dtype == lib.float32 and fn(ints, ints).dtype == lib.float32
    assert fn(0.5, ints).dtype == lib.float32
    assert fn(lib.tensor([0.5]), lib.tensor([2.0], dtype=lib.float64)).dtype == lib.float64
    np.testing.assert_array_equal(fn(x.detach(), 2.7).numpy(), fn(x.detach(), 2).numpy())
    out = lib.empty(3, dtype=lib.float64)
    assert fn(x, 4, out=out) is out
    np.testing.assert_array_equal(out.numpy(), fn(x.detach(), 4).numpy())
    with pytest.raises(TypeError, match=rf"^special_{name}\(\) received an invalid combination"):
        fn(0.5, 3)


def test_known_values():
    x = dyngrad.tensor([0.5], dtype=dyngrad.float64)
    sp = dyngrad.special
    assert sp.chebyshev_polynomial_t(x, 3).item() == pytest.approx(4 * 0.125 - 1.5)
    assert sp.hermite_polynomial_h(x, 3).item() == pytest.approx(8 * 0.125 - 12 * 0.5)
    assert sp.legendre_polynomial_p(x, 2).item() == pytest.approx((3 * 0.25 - 1) / 2)
    assert sp.laguerre_polynomial_l(x, 2).item() == pytest.approx((0.25 - 4 * 0.5 + 2) / 2)
    assert sp.chebyshev_polynomial_t(x, -1).item() == 0.0


@pytest.mark.parametrize("name", NAMES + ["zeta"])
def test_half_and_complex_inputs_have_no_kernel_as_in_torch(name, lib):
    fn = getattr(lib.special, name)
    kernel = name + "_cpu"
    with pytest.raises(NotImplementedError, match=rf"^\"{kernel}\" not implemented for 'Half'"):
        fn(lib.tensor([1.0], dtype=lib.float16), 2)
    with pytest.raises(NotImplementedError, match=rf"^\"{kernel}\" not implemented for 'Complex"):
        fn(lib.tensor([1.0]), lib.tensor([2.0 + 0j]))


def test_integer_inputs_follow_the_default_dtype(lib):
    old = lib.get_default_dtype()
    lib.set_default_dtype(lib.float64)
    try:
        ints = lib.tensor([1, 2, 3])
        assert lib.special.legendre_polynomial_p(ints, ints).dtype == lib.float64
        assert lib.special.zeta(ints + 1, ints).dtype == lib.float64
        assert lib.special.bessel_j0(ints).dtype == lib.float64
        assert lib.special.ndtri(lib.tensor([0, 1])).dtype == lib.float64
    finally:
        lib.set_default_dtype(old)
