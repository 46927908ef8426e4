"""torch.special's Bessel and Airy functions, erfcx, log_ndtr, ndtri and zeta: values over wide
grids (negative, tiny, large, inf, nan) in float64 and float32, dtypes, out=, and which of them
PyTorch differentiates, all against torch."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

INF, NAN = float("inf"), float("nan")
SPECIAL = [-INF, -1e300, -750.0, -100.0, -30.0, -2.5, -1.0, -1e-300, -0.0, 0.0, 1e-300, 1e-8]
SPECIAL += [0.5, 1.0, 2.0, 2.404825557695773, 5.0, 8.0, 20.0, 25.5, 100.0, 700.0, 1e10, 1e300]
SPECIAL += [INF, NAN]

UNARY = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
    "i0e",
    "i1e",
    "erfcx",
    "log_ndtr",
    "ndtri",
]
DIFFERENTIABLE = {
    "i0e": "SpecialI0EBackward0",
    "i1e": "SpecialI1EBackward0",
    "erfcx": "SpecialErfcxBackward0",
    "log_ndtr": "SpecialLogNdtrBackward0",
    "ndtri": "SpecialNdtriBackward0",
}
X_NAMED = {
    "airy_ai",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
}
# the oscillating functions are compared with an absolute tolerance scaled by the size of
# their phase (x for J and Y, (2/3)|x|^(3/2) for Ai): both libraries round it
OSCILLATING = {"airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1"}


def _grid(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    if name == "ndtri":
        return np.concatenate(
            [
                rng.uniform(0, 1, 2000),
                10 ** rng.uniform(-300, -1, 300),
                1 - 10 ** rng.uniform(-16, -1, 300),
                [0.0, 1.0, 0.5, 0.25, 0.75, -0.1, 1.1, 1e-320, NAN],
            ]
        )
    wide = np.concatenate(
        [
            rng.uniform(-30, 30, 2000),
            rng.uniform(-5, 5, 500),
            10 ** rng.uniform(-10, 3, 300),
            -(10 ** rng.uniform(-10, 3, 300)),
            SPECIAL,
        ]
    )
    return wide


def _both(torch, name, values, dtype="float64"):
    ours = getattr(dyngrad.special, name)(dyngrad.tensor(values, dtype=getattr(dyngrad, dtype)))
    theirs = getattr(torch.special, name)(torch.tensor(values, dtype=getattr(torch, dtype)))
    return ours.numpy(), theirs.numpy()


def _phase(name, x):
    a = np.abs(x)
    if name == "airy_ai":
        with np.errstate(over="ignore"):
            return np.maximum(a * np.sqrt(a), 1.0)
    return np.maximum(a, 1.0)


@pytest.mark.parametrize("name", UNARY)
def test_values_match_torch_over_wide_grids(name, torch):
    x = _grid(name)
    ours, theirs = _both(torch, name, x)
    assert np.array_equal(np.isnan(ours), np.isnan(theirs)), x[np.isnan(ours) != np.isnan(theirs)]
    finite = np.isfinite(theirs)
    assert np.array_equal(ours[~finite], theirs[~finite], equal_nan=True)
    o, t = ours[finite], theirs[finite]
    if name in OSCILLATING:
        # PyTorch's own J, Y (near x = 5) and Ai (near x = -2.09) are off by up to 3e-6
        # absolute (test_oscillating_values_match_mpmath holds dyngrad to 1e-15); past 1e15 the
        # phase x itself is rounding noise
        keep = np.abs(x[finite]) < 1e15
        o, t, xs = o[keep], t[keep], x[finite][keep]
        tol = 5e-6 + 4e-15 * _phase(name, xs) * np.maximum(np.abs(t), 0.1) + 1e-13 * np.abs(t)
        assert np.all(np.abs(o - t) <= tol), np.max(np.abs(o - t) / tol)
    else:
        # relative; erfcx, log_ndtr and the exponentially scaled ones carry the rounding of x^2
        # or x, as PyTorch's formulas do
        square = np.minimum(np.abs(x[finite]), 1e100) ** 2
        tol = 2e-14 * np.maximum(square if name in ("erfcx", "log_ndtr") else 1, 1)
        err = np.abs(o - t) / np.maximum(np.abs(t), 1e-300)
        assert np.all((err <= np.maximum(tol, 1e-14)) | (np.abs(o - t) < 1e-300)), err.max()


@pytest.mark.parametrize("name", UNARY)
def test_float32_matches_torch(name, torch):
    x = _grid(name)
    x = x[np.abs(x) < 3e38]
    ours, theirs = _both(torch, name, x, "float32")
    assert ours.dtype == np.float32
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))
    finite = np.isfinite(theirs) & np.isfinite(ours)
    # PyTorch computes in float32 (fits of ~1e-7); dyngrad rounds its float64 value once
    o, t = ours[finite].astype(np.float64), theirs[finite].astype(np.float64)
    scale = np.maximum(np.abs(t), 1e-30 if name not in OSCILLATING else 1.0)
    phase = _phase(name, x[finite].astype(np.float64)) if name in OSCILLATING else 1.0
    tol = 2e-5 * scale * phase + (5e-6 if name in OSCILLATING else 1e-37)
    assert np.all(np.abs(o - t) <= tol), np.max(np.abs(o - t) / scale)


def test_small_integer_grids_of_the_zeroth_orders_are_exact_where_known():
    t = dyngrad.tensor([0.0], dtype=dyngrad.float64)
    sp = dyngrad.special
    assert sp.bessel_j0(t).item() == 1.0 and sp.bessel_j1(t).item() == 0.0
    assert sp.bessel_y0(t).item() == -INF and sp.modified_bessel_k0(t).item() == INF
    assert sp.i0e(t).item() == 1.0 and sp.spherical_bessel_j0(t).item() == 1.0
    assert sp.erfcx(t).item() == 1.0 and sp.ndtri(dyngrad.tensor([0.5])).item() == 0.0


@pytest.mark.parametrize("name", UNARY)
def test_integer_inputs_give_the_default_float_and_python_numbers_are_refused(name, lib):
    out = getattr(lib.special, name)(lib.tensor([1, 2, 3]))
    assert out.dtype == lib.float32
    arg = "x" if name in X_NAMED else "input"
    with pytest.raises(TypeError, match=rf"^special_{name}\(\): argument '{arg}' \(position 1\)"):
        getattr(lib.special, name)(2.0)


@pytest.mark.parametrize("name", UNARY)
def test_only_torchs_differentiable_rows_record_a_node(name, lib):
    x = lib.tensor([0.3, 0.6], dtype=lib.float64, requires_grad=True)
    y = getattr(lib.special, name)(x)
    if name in DIFFERENTIABLE:
        assert type(y.grad_fn).__name__ == DIFFERENTIABLE[name]
    else:
        assert y.grad_fn is None and not y.requires_grad


@pytest.mark.parametrize("name", UNARY)
def test_out_argument(name, lib):
    x = lib.tensor([0.3, 0.6], requires_grad=True)
    out = lib.empty(2)
    fn = getattr(lib.special, name)
    if name in DIFFERENTIABLE:
        with pytest.raises(RuntimeError, match=rf"^special_{name}\(\): functions with out="):
            fn(x, out=out)
        x = x.detach()
    assert fn(x, out=out) is out
    np.testing.assert_array_equal(out.numpy(), fn(x.detach()).numpy())


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_gradients_match_torch(name, torch):
    values = [0.05, 0.3, 0.7, 0.95] if name == "ndtri" else [-3.0, -0.7, -1e-3, 0.0, 0.4, 2.5, 9.0]
    grads = []
    for lib in (dyngrad, torch):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        getattr(lib.special, name)(x).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-15)


def test_zeta_values_and_domain_match_torch(torch):
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(1, 12, 800), 1 + 10 ** rng.uniform(-8, 0, 100), [2, 3, 4]])
    q = np.concatenate([rng.uniform(0, 30, 800), 10 ** rng.uniform(-5, 5, 100), [-2.5, -3.5, 1]])
    ours = dyngrad.special.zeta(dyngrad.tensor(x), dyngrad.tensor(q)).numpy()
    theirs = torch.special.zeta(torch.tensor(x), torch.tensor(q)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-13)
    # q far below 0 (an integer x): many direct terms, with alternating signs for odd x
    x = np.array([2.0, 3.0, 4.0, 5.0, 3.0, 2.0])
    q = np.array([-60.5, -70.0, -100.5, -3.5, -2000.25, -20000.5])
    ours = dyngrad.special.zeta(dyngrad.tensor(x), dyngrad.tensor(q)).numpy()
    theirs = torch.special.zeta(torch.tensor(x), torch.tensor(q)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    qs = np.array([-INF, -3.0, -2.5, -0.0, 0.0, 0.5, 1.0, 2.0, INF, NAN])
    for xv in [-INF, 0.5, 1.0, 2.0, 3.0, 2.5, 50.0, INF, NAN]:
        xs = np.full_like(qs, xv)
        ours = dyngrad.special.zeta(dyngrad.tensor(xs), dyngrad.tensor(qs)).numpy()
        theirs = torch.special.zeta(torch.tensor(xs), torch.tensor(qs)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-13, equal_nan=True)


def test_zeta_overloads_nodes_and_errors_match_torch(lib):
    q = lib.tensor([1.0, 2.5], dtype=lib.float64, requires_grad=True)
    x = lib.tensor([2.0, 3.0], dtype=lib.float64, requires_grad=True)
    assert type(lib.special.zeta(x, q).grad_fn).__name__ == "SpecialZetaBackward0"
    assert type(lib.special.zeta(2.0, q).grad_fn).__name__ == "SpecialZetaBackward1"
    assert type(lib.special.zeta(x, 2.0).grad_fn).__name__ == "SpecialZetaBackward2"
    assert lib.special.zeta(2, lib.tensor([1.0])).dtype == lib.float32
    assert lib.special.zeta(lib.tensor([2]), lib.tensor([1])).dtype == lib.float32
    (g,) = lib.autograd.grad(lib.special.zeta(x.detach(), q).sum(), q)
    expected = -x.detach() * lib.special.zeta(x.detach() + 1, q.detach())
    np.testing.assert_allclose(g.numpy(), expected.numpy(), rtol=1e-14)
    with pytest.raises(
        NotImplementedError, match=r"^the derivative for 'zeta' is not implemented\."
    ):
        lib.special.zeta(x, q).sum().backward()
    with pytest.raises(
        NotImplementedError, match=r"^the derivative for 'zeta' is not implemented\."
    ):
        lib.special.zeta(x, 2.0).sum().backward()
    with pytest.raises(TypeError, match=r"^special_zeta\(\) received an invalid combination"):
        lib.special.zeta(2.0, 3.0)


@pytest.mark.parametrize(
    "name,order",
    [("bessel_j0", 0), ("bessel_j1", 1), ("bessel_y0", 0), ("bessel_y1", 1), ("airy_ai", None)],
)
def test_oscillating_values_match_mpmath(name, order):
    mp = pytest.importorskip("mpmath")
    rng = np.random.default_rng(3)
    if name == "airy_ai":
        x = np.concatenate([rng.uniform(-40, 0, 150), rng.uniform(0, 10, 50)])
        ref = [float(mp.airyai(v)) for v in x]
    else:
        x = np.concatenate([rng.uniform(0, 40, 150), 10 ** rng.uniform(-5, 0, 30)])
        fn = mp.besselj if name.startswith("bessel_j") else mp.bessely
        ref = [float(fn(order, v)) for v in x]
    ours = getattr(dyngrad.special, name)(dyngrad.tensor(x, dtype=dyngrad.float64)).numpy()
    ref = np.array(ref)
    scale = np.maximum(np.abs(ref), 1.0) * _phase(name, x)
    assert np.all(np.abs(ours - ref) <= 2e-15 * scale), np.max(np.abs(ours - ref) / scale)


@pytest.mark.parametrize("name", UNARY)
def test_half_and_complex_inputs_have_no_kernel_as_in_torch(name, lib):
    fn = getattr(lib.special, name)
    with pytest.raises(NotImplementedError, match=rf"^\"{name}_cpu\" not implemented for 'Complex"):
        fn(lib.tensor([1.0 + 0j]))
    if name in ("i0e", "i1e"):
        x = lib.tensor([0.5, -2.0], dtype=lib.float16)
        assert fn(x).dtype == lib.float16
        np.testing.assert_allclose(fn(x).float().numpy(), fn(x.float()).numpy(), rtol=1e-3)
    else:
        with pytest.raises(
            NotImplementedError, match=rf"^\"{name}_cpu\" not implemented for 'Half'"
        ):
            fn(lib.tensor([1.0], dtype=lib.float16))
