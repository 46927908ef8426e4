"""Specs for the elementwise op family: rounding and division, exp/log/trig, fused, compare."""

from __future__ import annotations

from .spec import OpSpec, T

S = T((3, 4))
POS = (0.5, 2.0)
UNIT = (-0.9, 0.9)  # inside (-1, 1): asin, acos, atanh, erfinv
# tensor-tensor samples: broadcast, 0-d, size-1, empty and non-contiguous
PAIRS = [
    (T((3, 4)), T((4,), *POS)),
    (T(()), T((3,), *POS)),
    (T((1, 4)), T((3, 1), *POS)),
    (T((0, 4)), T((4,), *POS)),
    (T((3, 4), nc=True), T((3, 4), *POS)),
]
UNARY = [(S,), (T(()),), (T((2, 3), nc=True),), (T((0, 3)),), (T((1,)),)]


def _unary(name, domain=(-2.0, 2.0), ref=None, **kw):
    return OpSpec(name, lambda t, x: getattr(t, name)(x), UNARY, domain=domain, ref=ref, **kw)


def _random_fill(name, call, **kw):
    # the random values times 0 leave a deterministic result, equal on both libraries;
    # the in-place op still records its zero-gradient node
    return OpSpec(name, lambda t, x: call(t, x * 1) * 0 + x, [(S,)], **kw)


SPECS = [
    # ---- division and rounding --------------------------------------------------------------
    OpSpec(
        "floor_divide",
        lambda t, x, y: x // y,
        PAIRS[:4] + [(S, 0.7)],
        grad=False,
        ref=lambda np, x, y: np.floor_divide(x, y),
    ),
    OpSpec(
        "div_trunc",
        lambda t, x, y: t.div(x, y, rounding_mode="trunc"),
        PAIRS[:3] + [(S, 0.3)],
        ref=lambda np, x, y: np.trunc(x / y),
    ),
    OpSpec(
        "div_floor",
        lambda t, x, y: t.div(x, y, rounding_mode="floor"),
        PAIRS[:3] + [(S, 0.3)],
        ref=lambda np, x, y: np.floor_divide(x, y),
    ),
    OpSpec("remainder", lambda t, x: x % 0.7, UNARY[:3], ref=lambda np, x: np.remainder(x, 0.7)),
    OpSpec(
        "remainder_tensor",
        lambda t, x, y: t.remainder(x, y),
        PAIRS,
        ref=lambda np, x, y: np.remainder(x, y),
    ),
    OpSpec(
        "rremainder",
        lambda t, x: 1.5 % x,
        [(T((3, 4), *POS),)],
        grad=False,
        ref=lambda np, x: np.remainder(1.5, x),
    ),
    OpSpec("fmod", lambda t, x: t.fmod(x, -0.7), UNARY[:3], ref=lambda np, x: np.fmod(x, -0.7)),
    OpSpec("fmod_tensor", lambda t, x, y: x.fmod(y), PAIRS, ref=lambda np, x, y: np.fmod(x, y)),
    _unary("floor", (-3.0, 3.0), lambda np, x: np.floor(x)),
    _unary("ceil", (-3.0, 3.0), lambda np, x: np.ceil(x)),
    _unary("trunc", (-3.0, 3.0), lambda np, x: np.trunc(x)),
    _unary("round", (-3.0, 3.0), lambda np, x: np.round(x)),
    _unary("frac", (-3.0, 3.0), lambda np, x: x - np.trunc(x)),
    OpSpec(
        "round_decimals",
        lambda t, x: t.round(x, decimals=1),
        UNARY[:2],
        ref=lambda np, x: np.round(x, 1),
    ),
    # ---- exp / log / trig -------------------------------------------------------------------
    _unary("exp2", ref=lambda np, x: np.exp2(x)),
    _unary("expm1", ref=lambda np, x: np.expm1(x)),
    _unary("log2", POS, lambda np, x: np.log2(x)),
    _unary("log10", POS, lambda np, x: np.log10(x)),
    _unary("log1p", (-0.5, 2.0), lambda np, x: np.log1p(x)),
    _unary("rsqrt", POS, lambda np, x: 1 / np.sqrt(x)),
    _unary("tan", (-1.2, 1.2), lambda np, x: np.tan(x)),
    _unary("asin", UNIT, lambda np, x: np.arcsin(x)),
    _unary("acos", UNIT, lambda np, x: np.arccos(x)),
    _unary("atan", ref=lambda np, x: np.arctan(x)),
    _unary("sinh", ref=lambda np, x: np.sinh(x)),
    _unary("cosh", ref=lambda np, x: np.cosh(x)),
    _unary("asinh", ref=lambda np, x: np.arcsinh(x)),
    _unary("acosh", (1.2, 3.0), lambda np, x: np.arccosh(x)),
    _unary("atanh", UNIT, lambda np, x: np.arctanh(x)),
    _unary("erf", (-3.0, 3.0)),
    _unary("erfc", (-3.0, 3.0)),
    _unary("erfinv", (-0.95, 0.95)),
    OpSpec("atan2", lambda t, x, y: t.atan2(x, y), PAIRS, ref=lambda np, x, y: np.arctan2(x, y)),
    OpSpec("hypot", lambda t, x, y: t.hypot(x, y), PAIRS, ref=lambda np, x, y: np.hypot(x, y)),
    OpSpec(
        "logaddexp",
        lambda t, x, y: t.logaddexp(x, y),
        PAIRS,
        ref=lambda np, x, y: np.logaddexp(x, y),
    ),
    OpSpec(
        "logaddexp2",
        lambda t, x, y: t.logaddexp2(x, y),
        PAIRS,
        ref=lambda np, x, y: np.logaddexp2(x, y),
    ),
    OpSpec("xlogy", lambda t, x, y: t.xlogy(x, y), PAIRS, ref=lambda np, x, y: x * np.log(y)),
    OpSpec(
        "xlogy_scalar_self",
        lambda t, y: t.xlogy(1.5, y),
        [(T((3, 4), 0.2, 2.0),)],
        ref=lambda np, y: 1.5 * np.log(y),
    ),
    OpSpec(
        "xlogy_scalar_other",
        lambda t, x: t.xlogy(x, 0.7),
        [(T((3, 4)),), (T((2, 3), nc=True),)],
        ref=lambda np, x: x * np.log(0.7),
    ),
    OpSpec("fmax", lambda t, x, y: t.fmax(x, y), PAIRS, ref=lambda np, x, y: np.fmax(x, y)),
    OpSpec("fmin", lambda t, x, y: t.fmin(x, y), PAIRS, ref=lambda np, x, y: np.fmin(x, y)),
    _unary("deg2rad", ref=lambda np, x: np.deg2rad(x)),
    _unary("rad2deg", ref=lambda np, x: np.rad2deg(x)),
    _unary("sinc", ref=lambda np, x: np.sinc(x)),
    _unary("logit", domain=(0.05, 0.95), ref=lambda np, x: np.log(x / (1 - x))),
    OpSpec(
        "logit_eps",
        lambda t, x: t.logit(x, eps=0.2),
        UNARY,
        domain=(0.05, 0.95),
        covers=("logit",),
        ref=lambda np, x: np.log(np.clip(x, 0.2, 0.8) / (1 - np.clip(x, 0.2, 0.8))),
    ),
    _unary("nan_to_num", ref=lambda np, x: np.nan_to_num(x)),
    # (+ x: torch's zero gradient of sgn is a ZeroTensor, which cannot be read as an array)
    OpSpec(
        "sgn", lambda t, x: t.sgn(x) + x, UNARY, ref=lambda np, x: np.sign(x) + x, torch_names=False
    ),
    OpSpec("square", lambda t, x: x.square(), UNARY[:2], covers=("pow",), ref=lambda np, x: x * x),
    # ---- fused arithmetic -------------------------------------------------------------------
    OpSpec(
        "addcmul",
        lambda t, x, a, b: t.addcmul(x, a, b, value=-0.5),
        [(S, T((4,)), T((3, 1))), (T(()), T((2, 1)), T((3,), nc=False))],
        ref=lambda np, x, a, b: x - 0.5 * a * b,
    ),
    OpSpec(
        "addcdiv",
        lambda t, x, a, b: t.addcdiv(x, a, b, value=2),
        [(S, T((4,)), T((3, 1), *POS)), (T((2, 3), nc=True), T(()), T((3,), *POS))],
        ref=lambda np, x, a, b: x + 2 * a / b,
    ),
    OpSpec(
        "lerp",
        lambda t, x, y: t.lerp(x, y, 0.3),
        [(S, T((4,))), (T(()), T(()))],
        ref=lambda np, x, y: x + 0.3 * (y - x),
    ),
    OpSpec(
        "lerp_far",
        lambda t, x, y: x.lerp(y, 0.8),
        [(S, T((3, 1)))],
        covers=("lerp",),
        ref=lambda np, x, y: x + 0.8 * (y - x),
    ),
    OpSpec(
        "lerp_tensor",
        lambda t, x, y, w: t.lerp(x, y, w),
        [(S, T((4,)), T((3, 1), -0.5, 1.5)), (T((2, 3), nc=True), T(()), T((3,), 0, 1))],
        ref=lambda np, x, y, w: x + w * (y - x),
    ),
    # ---- comparisons and clamps -------------------------------------------------------------
    OpSpec(
        "clamp_min",
        lambda t, x: x.clamp_min(-0.3),
        UNARY[:3],
        ref=lambda np, x: np.maximum(x, -0.3),
    ),
    OpSpec(
        "clamp_max",
        lambda t, x: t.clamp_max(x, 0.4),
        UNARY[:3],
        ref=lambda np, x: np.minimum(x, 0.4),
    ),
    OpSpec(
        "clamp_min_tensor",
        lambda t, x, lo: x.clamp_min(lo),
        PAIRS[:3],
        ref=lambda np, x, lo: np.maximum(x, lo),
    ),
    OpSpec(
        "clamp_max_tensor",
        lambda t, x, hi: t.clamp_max(x, hi),
        PAIRS[:3],
        ref=lambda np, x, hi: np.minimum(x, hi),
    ),
    OpSpec(
        "clamp_tensor_one_sided",
        lambda t, x, lo: t.clamp(x, min=lo),
        PAIRS[:2],
        covers=("clamp_tensor",),
        ref=lambda np, x, lo: np.maximum(x, lo),
    ),
    OpSpec(
        "clamp_crossed_bounds",
        lambda t, x, lo, hi: x.clamp(lo, hi),
        [(S, T((4,), 0.5, 1.0), T((3, 1), -1.0, 0.4))],
        covers=("clamp_tensor",),
        ref=lambda np, x, lo, hi: np.minimum(np.maximum(x, lo), hi),
    ),
    OpSpec(
        "where_scalars",
        lambda t, x: t.where(x > 0, x, 0.5),
        UNARY[:3],
        covers=("where",),
        ref=lambda np, x: np.where(x > 0, x, 0.5),
    ),
    # ---- in-place random fills (zero gradient) ----------------------------------------------
    _random_fill("normal_", lambda t, x: x.normal_()),
    _random_fill("uniform_", lambda t, x: x.uniform_(-1, 1)),
    _random_fill("exponential_", lambda t, x: x.exponential_()),
    _random_fill("cauchy_", lambda t, x: x.cauchy_()),
    _random_fill("log_normal_", lambda t, x: x.log_normal_()),
    _random_fill("geometric_", lambda t, x: x.geometric_(0.5)),
    _random_fill("random_0", lambda t, x: x.random_(0, 5)),
    _random_fill("random_1", lambda t, x: x.random_(5)),
    _random_fill("random_2", lambda t, x: x.random_()),
    _random_fill("bernoulli_scalar_", lambda t, x: x.bernoulli_(0.3)),
    OpSpec(
        "bernoulli_tensor_",
        lambda t, x, p: (x * 1).bernoulli_(p) * 0 + x * p,
        [(S, T((4,), 0.0, 1.0))],
    ),
    OpSpec("bernoulli", lambda t, p: t.bernoulli(p) * 0 + p, [(T((3, 4), 0.0, 1.0),)]),
    OpSpec("bernoulli_p", lambda t, x: x.bernoulli(0.3) * 0, [(S,)], grad=False),
    OpSpec("fill_tensor", lambda t, x, v: (x * 1).fill_(v) * x, [(S, T(()))]),
]
