"""Exact values and gradients at kinks, ties and special values, against torch."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import dyngrad

from .oracle import same, same_grads

INF, NAN = float("inf"), float("nan")


def _f(t):
    """`torch.nn.functional` on torch; dyngrad's activation module on dyngrad."""
    from dyngrad.ops.elementwise import activation

    return activation if t is dyngrad else t.nn.functional


ACTIVATION_KINKS = [
    ("F.relu6(x)", [0.0, 6.0, -1.0, 3.0, 7.0]),
    ("F.hardtanh(x, -0.5, 2.0)", [-0.5, 2.0, -1.0, 0.0, 3.0]),
    ("F.leaky_relu(x, 0.2)", [0.0, -1.0, 1.0]),
    ("F.leaky_relu(x, -0.3)", [0.0, -1.0, 1.0]),
    ("F.elu(x, 0.5)", [0.0, -1.0, 1.0, -30.0]),
    ("t.selu(x)", [0.0, -1.0, 1.0]),
    ("t.celu(x, 2.0)", [0.0, -1.0, 1.0]),
    ("t.threshold(x, 1.0, 5.0)", [1.0, 2.0, 0.0]),
    ("F.softplus(x, beta=2.0, threshold=1.0)", [0.5, 0.4, 0.6, -40.0, 40.0]),
    ("F.softplus(x)", [-800.0, 800.0, 0.0, 20.0, 19.99]),
    ("F.hardsigmoid(x)", [-3.0, 3.0, 0.0, -4.0, 4.0]),
    ("F.hardswish(x)", [-3.0, 3.0, -4.0, 4.0, 0.0]),
    ("F.logsigmoid(x)", [-800.0, 800.0, 0.0]),
    ("F.silu(x)", [-800.0, 800.0, 0.0]),
    ("F.mish(x)", [-800.0, 800.0, 0.0]),
    ("F.gelu(x)", [0.0, -40.0, 40.0]),
    ("F.gelu(x, approximate='tanh')", [0.0, -40.0, 40.0]),
    ("F.softsign(x)", [0.0, -1e300, 1e300]),
    ("F.tanhshrink(x)", [0.0, -40.0, 40.0]),
]


@pytest.mark.parametrize("expr,values", ACTIVATION_KINKS, ids=[e for e, _ in ACTIVATION_KINKS])
def test_activation_kinks_match_torch(torch, expr, values):
    x = np.array(values)
    env_expr = expr.replace("F.", "f(t).")
    _check(torch, env_expr, x)


def _check(torch, expr, x):
    # the oracle evaluates `expr` with `t` bound to each module; `f` picks its functional
    ours = eval(expr, {"t": dyngrad, "f": _f}, {"x": dyngrad.from_numpy(x.copy())})
    theirs = eval(expr, {"t": torch, "f": _f}, {"x": torch.from_numpy(x.copy())})
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-300)
    xd = dyngrad.from_numpy(x.copy()).requires_grad_()
    xt = torch.from_numpy(x.copy()).requires_grad_()
    yd = eval(expr, {"t": dyngrad, "f": _f}, {"x": xd})
    yt = eval(expr, {"t": torch, "f": _f}, {"x": xt})
    assert yd.grad_fn.name() == yt.grad_fn.name()
    (gd,) = dyngrad.autograd.grad(yd.sum(), xd)
    (gt,) = torch.autograd.grad(yt.sum(), xt)
    np.testing.assert_allclose(gd.numpy(), gt.numpy(), rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("name", ["leaky_relu_", "elu_"])
def test_inplace_activation_with_negative_slope_fails_at_backward(torch, name):
    for t in (dyngrad, torch):
        x = t.tensor([1.0, -1.0], requires_grad=True)
        y = getattr(_f(t), name)(x * 1, -0.5)
        with pytest.raises(RuntimeError, match="In-place (leakyReLu|elu) backward"):
            y.sum().backward()


def test_threshold_inplace_differentiates_through_its_input(torch):
    # ThresholdBackward1 masks by the overwritten input, not by the result (5 > 1 here)
    _check(torch, "t.threshold_(x * 1, 1.0, 5.0)", np.array([0.0, 2.0, 1.0]))


def test_clamp_tensor_bounds_gradient_on_every_tie(torch):
    # all 27 orderings of x, lo, hi among {0, 1, 2}: who gets the gradient when they tie
    for xv, lv, hv in itertools.product([0.0, 1.0, 2.0], repeat=3):
        same_grads(torch, "x.clamp(lo, hi)", x=np.array([xv]), lo=np.array([lv]), hi=np.array([hv]))


@pytest.mark.parametrize(
    "expr",
    [
        "x.clamp(0.0, 1.0)",
        "x.clamp(1.0, 0.0)",
        "x.clamp(min=1.0)",
        "x.clamp(max=1.0)",
        "x.clamp_min(1.0)",
        "x.clamp_max(1.0)",
        "x.clamp(min=lo)",
        "x.clamp(max=lo)",
        "x.clamp_min(lo)",
        "x.clamp_max(lo)",
        "t.clip(x, lo, lo + 1)",
    ],
)
def test_clamp_at_its_bounds(torch, expr):
    same_grads(torch, expr, x=np.array([0.0, 1.0, 2.0, 0.5]), lo=np.array([1.0, 1.0, 1.0, 0.5]))


def test_clamp_with_nan(torch):
    same_grads(torch, "x.clamp(lo)", x=np.array([0.0, 1.0, NAN]), lo=np.array([NAN, 0.5, 0.0]))
    same_grads(torch, "x.clamp(0.0, 0.5)", x=np.array([NAN, 1.0, 0.2]))
    same(torch, "x.clamp(float('nan'), 1.0)", x=np.array([1.0, 2.0]))


@pytest.mark.parametrize("expr", ["t.maximum(x, y)", "t.minimum(x, y)"])
def test_maximum_minimum_ties_split_the_gradient(torch, expr):
    same_grads(torch, expr, x=np.array([1.0, 2.0, 3.0, NAN]), y=np.array([1.0, 3.0, 2.0, 0.0]))


@pytest.mark.parametrize(
    "expr",
    [
        "x.abs()",
        "x.sign()",
        "x.floor()",
        "x.ceil()",
        "x.round()",
        "x.trunc()",
        "x.frac()",
        "x.round(decimals=1)",
        "x.round(decimals=-1)",
        "t.fix(x)",
    ],
)
def test_rounding_at_ties_and_zero(torch, expr):
    same_grads(torch, expr, x=np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.0, -0.0, 0.25, 15.0, 25.0]))


def test_round_decimals_matches_torch_in_float32(torch):
    x = np.array([1.25, 1.35, 12345.0, 1.005, 2.675, -0.125], np.float32)
    same(torch, "x.round(decimals=2)", x=x)
    same(torch, "x.round(decimals=-2)", x=x * 100)


SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 1e-300, 700.0, -700.0])


@pytest.mark.parametrize(
    "name",
    [
        "exp2",
        "expm1",
        "log2",
        "log10",
        "log1p",
        "rsqrt",
        "tan",
        "asin",
        "acos",
        "atan",
        "sinh",
        "cosh",
        "asinh",
        "acosh",
        "atanh",
        "erf",
        "erfc",
        "erfinv",
        "square",
        "sign",
        "frac",
        "reciprocal",
        "sigmoid",
    ],
)
def test_special_values_match_torch(torch, name):
    with np.errstate(all="ignore"):
        same(torch, f"t.{name}(x)", x=SPECIAL)
        same(torch, f"t.{name}(x)", x=SPECIAL.astype(np.float32))


@pytest.mark.parametrize("name", ["asin", "acos", "acosh", "rsqrt", "atanh", "log1p", "erfinv"])
def test_gradient_at_domain_edges(torch, name):
    with np.errstate(all="ignore"):
        same_grads(torch, f"t.{name}(x)", x=np.array([1.0, -1.0, 0.0, 0.5]))


def test_atan2_gradient_at_the_origin(torch):
    same_grads(torch, "t.atan2(x, y)", x=np.array([0.0, 0.0, 1.0]), y=np.array([0.0, 1.0, 0.0]))


@pytest.mark.parametrize(
    "expr",
    [
        "x // y",
        "x % y",
        "t.fmod(x, y)",
        "t.div(x, y, rounding_mode='trunc')",
        "t.div(x, y, rounding_mode='floor')",
    ],
)
def test_division_signs_zeros_and_infinities(torch, expr):
    x = np.array([5.0, -5.0, 5.0, -5.0, 0.5, -0.0, 0.0, 4.0, 1.0, -1.0, 0.0, 5.0, -5.0, INF])
    y = np.array([3.0, 3.0, -3.0, -3.0, 0.1, 2.0, -2.0, -2.0, 0.0, 0.0, 0.0, INF, INF, 2.0])
    with np.errstate(all="ignore"):
        same(torch, expr, x=x, y=y)
        same(torch, expr, x=x.astype(np.float32), y=y.astype(np.float32))


def test_signed_zeros_of_remainder_and_floor_divide(torch):
    x = np.array([-0.0, 0.0, 4.0, -4.0, -0.0])
    y = np.array([2.0, -2.0, -2.0, 2.0, -2.0])
    for expr in ("x % y", "x // y", "t.fmod(x, y)"):
        ours = eval(expr, {"t": dyngrad}, {"x": dyngrad.from_numpy(x), "y": dyngrad.from_numpy(y)})
        theirs = eval(expr, {"t": torch}, {"x": torch.from_numpy(x), "y": torch.from_numpy(y)})
        np.testing.assert_array_equal(np.signbit(ours.numpy()), np.signbit(theirs.numpy()))


@pytest.mark.parametrize(
    "expr",
    [
        "x % y",
        "x.fmod(y)",
        "t.remainder(x, 0.7)",
        "x.fmod(-0.7)",
        "t.lerp(x, y, 0.3)",
        "t.lerp(x, y, 0.8)",
        "t.lerp(x, y, w)",
        "t.addcmul(x, x, y, value=2)",
        "t.addcdiv(x, x, y, value=2)",
        "t.atan2(x, y)",
        "x.div(y, rounding_mode='floor')",
    ],
)
def test_gradients_match_torch(torch, expr):
    same_grads(
        torch,
        expr,
        x=np.array([1.5, -2.5, 3.25]),
        y=np.array([0.7, 1.5, -2.0]),
        w=np.array([0.2, 0.5, 0.9]),
    )


def test_lerp_is_exact_at_both_ends(torch):
    x = np.array([1e8, -3.0, 0.1], np.float32)
    y = np.array([1.0, 7.0, 0.3], np.float32)
    for w in (0.0, 1.0, 0.5, 0.7):
        same(torch, f"t.lerp(x, y, {w})", x=x, y=y)
    same(torch, "t.lerp(x, y, w)", x=x, y=y, w=np.array([0.0, 1.0, 0.7], np.float32))


def test_floor_divide_and_scalar_remainder_have_no_derivative(torch):
    for t in (dyngrad, torch):
        x = t.tensor([1.5, 2.5], requires_grad=True)
        for y in (x // 2, 2 // x, 5 % x, t.floor_divide(x, x)):
            assert y.grad_fn.name() == "torch::autograd::NotImplemented"
            with pytest.raises(RuntimeError, match="derivative for aten::"):
                y.sum().backward()


def test_pow_at_zero_and_integer_exponents(torch):
    same_grads(torch, "x ** 0", x=np.array([0.0, 2.0]))
    same_grads(torch, "x ** 2", x=np.array([0.0, -2.0]))
    same_grads(torch, "x.square()", x=np.array([0.0, -2.0]))
    same(torch, "x ** y", x=np.array([-2, -1, 0, 1, 2, 3]), y=np.array([-1, -2, -3, -1, -2, -3]))
    same(torch, "2 ** y", x=None, y=np.array([-1, 0, 2]))


@pytest.mark.parametrize("base", ["x", "0.0", "-2.0", "2.0"])
def test_pow_exponent_gradient_at_a_zero_or_negative_base(lib, base):
    # d(b^y)/dy = b^y log b: 0 at b == 0 and y >= 0, -inf at b == 0 and y < 0, nan for b < 0
    y = lib.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    x = lib.zeros(3, requires_grad=True)
    out = x**y if base == "x" else lib.pow(float(base), y)
    out.sum().backward()
    want = {
        "x": [-INF, 0.0, 0.0],
        "0.0": [-INF, 0.0, 0.0],
        "-2.0": [NAN] * 3,
        "2.0": [0.5 * np.log(2), np.log(2), 4 * np.log(2)],
    }[base]
    np.testing.assert_allclose(y.grad.tolist(), want, rtol=1e-6)
