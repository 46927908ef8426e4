"""Specs for the activation op family (the functions `nn.functional` re-exports)."""

from __future__ import annotations

import dyngrad
from dyngrad.ops.elementwise import activation

from .spec import OpSpec, T

SAMPLES = [(T((3, 4), -4.0, 4.0),), (T(()),), (T((2, 3), -4.0, 4.0, nc=True),), (T((0, 3)),)]


def F(t):
    """`torch.nn.functional` on torch; dyngrad's activation module on dyngrad."""
    return activation if t is dyngrad else t.nn.functional


def _spec(name, call, ref=None, samples=SAMPLES, **kw):
    return OpSpec(name, call, samples, ref=ref, **kw)


def _inplace(name, call, **kw):
    # x * 1 is not a leaf, so the in-place form may run on it and record its node
    return OpSpec(name, lambda t, x: call(t, x * 1), SAMPLES[:3], **kw)


SPECS = [
    _spec(
        "relu6",
        lambda t, x: F(t).relu6(x * 2),
        lambda np, x: np.clip(2 * x, 0, 6),
        covers=("hardtanh",),
    ),
    _spec(
        "hardtanh", lambda t, x: F(t).hardtanh(x, -0.5, 1.5), lambda np, x: np.clip(x, -0.5, 1.5)
    ),
    _inplace("hardtanh_", lambda t, x: F(t).hardtanh_(x), covers=("hardtanh",)),
    _spec(
        "leaky_relu",
        lambda t, x: F(t).leaky_relu(x, 0.2),
        lambda np, x: np.where(x > 0, x, 0.2 * x),
    ),
    _inplace("leaky_relu_result", lambda t, x: F(t).leaky_relu_(x, 0.1)),
    _spec(
        "elu",
        lambda t, x: F(t).elu(x, 0.7),
        lambda np, x: np.where(x > 0, x, 0.7 * np.expm1(np.minimum(x, 0))),
    ),
    _inplace("elu_result", lambda t, x: F(t).elu(x, 1.3, inplace=True)),
    _spec("selu", lambda t, x: t.selu(x), covers=("elu",)),
    _inplace("selu_", lambda t, x: t.selu_(x), covers=("elu_result",)),
    _spec(
        "celu",
        lambda t, x: t.celu(x, 1.5),
        lambda np, x: np.where(x > 0, x, 1.5 * np.expm1(np.minimum(x, 0) / 1.5)),
    ),
    _inplace("celu_result", lambda t, x: t.celu_(x, 0.5)),
    _spec("gelu", lambda t, x: F(t).gelu(x), covers=("gelu_backward",)),
    _spec("gelu_tanh", lambda t, x: F(t).gelu(x, approximate="tanh"), covers=("gelu",)),
    _spec("silu", lambda t, x: F(t).silu(x), lambda np, x: x / (1 + np.exp(-x))),
    _inplace("silu_", lambda t, x: F(t).silu(x, inplace=True), covers=("silu",)),
    _spec("mish", lambda t, x: F(t).mish(x), lambda np, x: x * np.tanh(np.log1p(np.exp(x)))),
    _spec(
        "softplus",
        lambda t, x: F(t).softplus(x, beta=2.0, threshold=3.0),
        lambda np, x: np.where(2 * x > 3, x, np.log1p(np.exp(2 * x)) / 2),
    ),
    _spec(
        "softplus_large",
        lambda t, x: F(t).softplus(x * 30),
        covers=("softplus",),
        samples=SAMPLES[:1],
    ),
    _spec(
        "softsign",
        lambda t, x: F(t).softsign(x),
        lambda np, x: x / (1 + np.abs(x)),
        covers=("div",),
    ),
    _spec(
        "hardsigmoid",
        lambda t, x: F(t).hardsigmoid(x),
        lambda np, x: np.clip(x / 6 + 0.5, 0, 1),
        gradgrad=True,
    ),
    _spec("hardswish", lambda t, x: F(t).hardswish(x), lambda np, x: x * np.clip(x + 3, 0, 6) / 6),
    _inplace("hardswish_", lambda t, x: F(t).hardswish(x, inplace=True), covers=("hardswish",)),
    _spec(
        "glu",
        lambda t, x: t.nn.functional.glu(x, 0),
        lambda np, x: x[: len(x) // 2] / (1 + np.exp(-x[len(x) // 2 :])),
        samples=[(T((4, 3), -4.0, 4.0),), (T((2, 5), nc=True),)],
        gradgrad=True,
    ),
    _spec(
        "logsigmoid", lambda t, x: F(t).logsigmoid(x * 20), lambda np, x: -np.logaddexp(0, -20 * x)
    ),
    _spec(
        "tanhshrink", lambda t, x: F(t).tanhshrink(x), lambda np, x: x - np.tanh(x), covers=("sub",)
    ),
    _spec(
        "threshold",
        lambda t, x: t.threshold(x, 0.5, -2.0),
        lambda np, x: np.where(x > 0.5, x, -2.0),
        covers=("threshold_backward",),
    ),
    _inplace("threshold_inplace", lambda t, x: t.threshold_(x, 0.5, 0.25)),
]
