"""Normalization with float16/bfloat16 inputs, as PyTorch's CPU kernels: computed in float32 and
rounded once, with parameters of the input's dtype or float32 ("mixed dtype"), and PyTorch's
errors for every other mix (Note [Normalization in float32])."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

LOW = ["bfloat16", "float16"]
X = np.random.default_rng(0).standard_normal((4, 3, 5)).astype(np.float32) * 3 + 1


def _call(lib, kind, x_dtype, param_dtypes, training=True):
    x = lib.from_numpy(X).to(getattr(lib, x_dtype))
    params = [
        None
        if d is None
        else lib.linspace(0.5, 1.5, 3 if kind != "layer" else 5).to(getattr(lib, d))
        for d in param_dtypes
    ]
    F = lib.nn.functional
    if kind == "batch":
        weight, bias, mean, var = params
        if var is not None:
            var = var.abs()
        return F.batch_norm(x, mean, var, weight, bias, training=training), (mean, var)
    if kind == "layer":
        return F.layer_norm(x, (5,), *params), ()
    return F.group_norm(x, 3, *params), ()


def _outcome(lib, kind, x_dtype, param_dtypes, training=True):
    try:
        out, stats = _call(lib, kind, x_dtype, param_dtypes, training)
    except RuntimeError as exc:
        return str(exc).splitlines()[0]
    return str(out.dtype).split(".")[-1], [
        str(s.dtype).split(".")[-1] for s in stats if s is not None
    ]


F32, F64, BF, H = "float32", "float64", "bfloat16", "float16"
MIXES = {
    "batch": [
        (BF, [F32] * 4),
        (H, [F32] * 4),
        (BF, [BF, F32, F32, F32]),
        (BF, [F32, BF, F32, F32]),
        (F32, [BF] * 4),
        (F32, [F64] * 4),
        (F64, [F32] * 4),
        (BF, [H] * 4),
        (F32, [F32, F32, F64, F64]),
        (BF, [None, None, F32, F32]),
    ],
    "layer": [
        (BF, [F32, F32]),
        (BF, [BF, F32]),
        (BF, [F32, BF]),
        (F64, [F32, F32]),
        (H, [F32, None]),
    ],
    "group": [(BF, [F32, F32]), (BF, [None, F32]), (F32, [F64, F64]), (F64, [F32, F32])],
}
CASES = [
    (kind, x, p, training)
    for kind, mixes in MIXES.items()
    for x, p in mixes
    for training in ([True, False] if kind == "batch" else [True])  # batch norm's eval mode
]


@pytest.mark.parametrize("kind,x_dtype,param_dtypes,training", CASES)
def test_which_dtype_mixes_run_as_torch(kind, x_dtype, param_dtypes, training, torch):
    ours = _outcome(dyngrad, kind, x_dtype, param_dtypes, training)
    assert ours == _outcome(torch, kind, x_dtype, param_dtypes, training)


@pytest.mark.parametrize("params", ["own", "float32"])
@pytest.mark.parametrize("x_dtype", LOW)
@pytest.mark.parametrize("kind", ["batch", "layer", "group"])
def test_low_precision_values_are_rounded_once(kind, x_dtype, params, torch):
    # computed in float32 and rounded once, the results are PyTorch's to the last bit but for
    # the odd tie broken by a different summation order. (Batch norm with parameters of the
    # input's dtype rounds its batch statistics to that dtype first, in a way not reproduced
    # here: there, results are within one unit in the last place.)
    param_dtypes = [x_dtype if params == "own" else F32] * (4 if kind == "batch" else 2)
    ours, _ = _call(dyngrad, kind, x_dtype, param_dtypes)
    theirs, _ = _call(torch, kind, x_dtype, param_dtypes)
    a, b = ours.float().numpy(), theirs.float().numpy()
    ulp = 2.0**-7 if x_dtype == BF else 2.0**-10
    np.testing.assert_allclose(a, b, rtol=ulp, atol=ulp)
    assert np.mean(a == b) > (0.5 if (kind, params) == ("batch", "own") else 0.97)


@pytest.mark.parametrize("kind", ["batch", "layer", "group"])
def test_mixed_dtype_gradients(kind, torch):
    # bfloat16 activations, float32 parameters: the input's gradient is bfloat16, the
    # parameters' float32, each near PyTorch's
    grads = []
    for lib in (dyngrad, torch):
        x = lib.from_numpy(X).to(lib.bfloat16).requires_grad_(True)
        n = 5 if kind == "layer" else 3
        weight = lib.linspace(0.5, 1.5, n).requires_grad_(True)
        bias = lib.linspace(-1.0, 1.0, n).requires_grad_(True)
        F = lib.nn.functional
        if kind == "batch":
            out = F.batch_norm(x, None, None, weight, bias, training=True)
        elif kind == "layer":
            out = F.layer_norm(x, (5,), weight, bias)
        else:
            out = F.group_norm(x, 3, weight, bias)
        (out.float() ** 3).sum().backward()
        grads.append([(str(t.grad.dtype), t.grad.float().numpy()) for t in (x, weight, bias)])
    for (our_dtype, ours), (their_dtype, theirs) in zip(*grads):
        assert our_dtype.split(".")[-1] == their_dtype.split(".")[-1]
        scale = np.abs(theirs).max()
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=scale * 2**-6)


def test_mixed_dtype_error_says_what_to_do():
    ln = dyngrad.nn.LayerNorm(5)
    with pytest.raises(RuntimeError, match=r"(?s)all inputs must share same datatype.*\.to\("):
        ln(dyngrad.ones(2, 5, dtype=dyngrad.float64))
