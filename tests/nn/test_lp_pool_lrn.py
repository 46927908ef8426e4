"""Power-average pooling (lp_pool1d/2d/3d, LPPool*), local response normalization
(local_response_norm, LocalResponseNorm, CrossMapLRN2d) and the deprecated upsample names,
against torch: values, gradients, node names, reprs, warnings and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad

from ..ops.oracle import same, same_grads

RNG = np.random.default_rng(5)
X5 = RNG.standard_normal((2, 3, 4, 6, 5))
POS = np.abs(X5) + 0.1
F = "t.nn.functional"


@pytest.mark.parametrize(
    "expr",
    [
        f"{F}.lp_pool1d(p[0, 0], 2, 3)",
        f"{F}.lp_pool1d(p[0, 0, 0], 1.5, 2, 1, ceil_mode=True)",
        f"{F}.lp_pool2d(p[0], 2, 2)",
        f"{F}.lp_pool2d(p[0], 3, (2, 3), (1, 2))",
        f"{F}.lp_pool2d(x[0], 2, 3, 2, ceil_mode=True)",
        f"{F}.lp_pool2d(x[0], float('inf'), 2)",
        f"{F}.lp_pool2d(x[0], -float('inf'), 2, 1)",
        f"{F}.lp_pool3d(p, 2, 2)",
        f"{F}.lp_pool3d(p, 1.5, (2, 3, 2), 1)",
        f"{F}.lp_pool3d(x, 2, 3, 2, ceil_mode=True)",
        "t.nn.LPPool1d(2, 3, 2)(p[0, 0])",
        "t.nn.LPPool2d(1.5, 2)(p[0])",
        "t.nn.LPPool3d(3, 2)(p)",
    ],
)
def test_lp_pool_matches_torch(torch, expr):
    same_grads(torch, expr, x=X5, p=POS)


@pytest.mark.parametrize(
    "expr",
    [
        f"{F}.local_response_norm(x[0], 3)",
        f"{F}.local_response_norm(x[0, 0], 4, alpha=0.5, beta=0.6, k=2.0)",
        f"{F}.local_response_norm(x, 2, alpha=0.3)",
        f"{F}.local_response_norm(x[:, :, 0], 5, alpha=0.3, beta=1.0)",
        "t.nn.LocalResponseNorm(3, alpha=0.4)(x)",
        "t.nn.LocalResponseNorm(2)(x[0, 0])",
        # errors and the empty input
        f"{F}.local_response_norm(x[0, 0, 0], 2)",
        f"{F}.local_response_norm(x[:0], 2)",
    ],
)
def test_local_response_norm_matches_torch(torch, expr):
    if "x[0, 0, 0]" in expr or "x[:0]" in expr:
        same(torch, expr, requires_grad=True, x=X5)
    else:
        same_grads(torch, expr, x=X5)


@pytest.mark.parametrize("size", [2, 3, 4, 5])  # torch's backward fails for size 1
def test_cross_map_lrn2d_matches_torch_values_and_its_gradient(torch, size):
    # torch's legacy channel sums and its own backward formula, both kept
    x = X5[:, :, 0] if size != 5 else RNG.standard_normal((2, 9, 3, 3))
    cotangent = np.random.default_rng(2).standard_normal(x.shape)
    results = []
    for t in (dyngrad, torch):
        a = t.tensor(x, requires_grad=True)
        out = t.nn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=1.5)(a)
        out.backward(t.tensor(cotangent))
        results.append((out.detach().numpy(), a.grad.numpy(), out.grad_fn.name()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10, atol=1e-12)
    assert results[0][2] == results[1][2] == "CrossMapLRN2dBackward"


def test_cross_map_lrn2d_rejects_other_ranks_as_torch(torch):
    messages = []
    for t in (dyngrad, torch):
        with pytest.raises(ValueError) as info:
            t.nn.CrossMapLRN2d(3)(t.zeros(2, 3, 4))
        messages.append(str(info.value).splitlines()[0])
    assert messages[0] == messages[1]


@pytest.mark.parametrize(
    "call",
    [
        lambda F, x: F.lp_pool1d(x[0], 2, 2),
        lambda F, x: F.lp_pool2d(x, 1.5, (2, 1), 1, ceil_mode=True),
        lambda F, x: F.lp_pool3d(x.unsqueeze(0), 3, 2, 1),
        lambda F, x: F.local_response_norm(x, 2, alpha=0.5),
        lambda F, x: F.local_response_norm(x.unsqueeze(0), 3, alpha=0.5),
        lambda F, x: F.local_response_norm(x.unsqueeze(-1), 3, alpha=0.5),
    ],
)
def test_lp_pool_and_lrn_gradcheck_and_gradgradcheck(call):
    x = dyngrad.tensor(np.abs(RNG.standard_normal((3, 4, 3))) + 0.2, requires_grad=True)

    def fn(t):
        return call(dyngrad.nn.functional, t)

    assert dyngrad.autograd.gradcheck(fn, (x,))
    assert dyngrad.autograd.gradgradcheck(fn, (x,))


def test_reprs_match_torch(torch):
    for make in [
        lambda t: t.nn.LPPool1d(2, 3),
        lambda t: t.nn.LPPool2d(1.5, (2, 3), 1, ceil_mode=True),
        lambda t: t.nn.LPPool3d(3, 2, (1, 2, 1)),
        lambda t: t.nn.LocalResponseNorm(2),
        lambda t: t.nn.LocalResponseNorm(5, alpha=0.1, beta=0.5, k=2.0),
        lambda t: t.nn.CrossMapLRN2d(3),
        lambda t: t.nn.CrossMapLRN2d(5, 1e-3, 0.5, 2),
    ]:
        assert repr(make(dyngrad)) == repr(make(torch))


@pytest.mark.parametrize(
    "name, call",
    [
        ("upsample", lambda F, x: F.upsample(x, scale_factor=2)),
        ("upsample", lambda F, x: F.upsample(x, size=(5, 7), mode="bilinear")),
        ("upsample_nearest", lambda F, x: F.upsample_nearest(x, size=7)),
        ("upsample_bilinear", lambda F, x: F.upsample_bilinear(x, scale_factor=2)),
    ],
)
def test_deprecated_upsample_names_warn_and_interpolate_as_torch(torch, name, call):
    x = X5[0, :, 0]
    results = []
    for t in (dyngrad, torch):
        a = t.tensor(x[None], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = call(t.nn.functional, a)
        assert [str(w.message) for w in caught] == [
            f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead."
        ]
        assert caught[0].category is UserWarning
        assert caught[0].filename == __file__
        out.sum().backward()
        results.append((out.detach().numpy(), a.grad.numpy(), out.grad_fn.name()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10)
    assert results[0][2] == results[1][2]
