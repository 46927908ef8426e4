"""3-d pooling (max, average, adaptive) and the `_with_indices` functions against torch:
values, indices, gradients, grad_fn names, module reprs and errors."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from ..ops.oracle import same, same_grads

RNG = np.random.default_rng(0)
X5 = RNG.standard_normal((2, 3, 5, 6, 7))
X4 = RNG.standard_normal((3, 4, 5, 6))
X32 = X5.astype(np.float32)
F = "t.nn.functional"


@pytest.mark.parametrize(
    "expr",
    [
        f"{F}.max_pool3d(x, 2)",
        f"{F}.max_pool3d(x, 3, 2, 1, ceil_mode=True)",
        f"{F}.max_pool3d(x, (2, 3, 2), 1, (1, 0, 1), (2, 1, 1))",
        f"{F}.max_pool3d(x, 2, return_indices=True)",
        f"{F}.max_pool3d(u, (3, 2, 2), stride=(1, 2, 3), ceil_mode=True, return_indices=True)",
        f"{F}.avg_pool3d(x, 2)",
        f"{F}.avg_pool3d(x, 3, 2, 1)",
        f"{F}.avg_pool3d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)",
        f"{F}.avg_pool3d(x, 3, 2, 1, ceil_mode=True, count_include_pad=True)",
        f"{F}.avg_pool3d(u, (2, 1, 3), divisor_override=4)",
        f"{F}.adaptive_avg_pool3d(x, (2, 4, 3))",
        f"{F}.adaptive_avg_pool3d(x, (None, 4, 9))",
        f"{F}.adaptive_avg_pool3d(x, 1)",
        f"{F}.adaptive_avg_pool3d(u, 3)",
        f"{F}.adaptive_max_pool3d(x, (2, 4, 3))",
        f"{F}.adaptive_max_pool3d(u, (3, None, 4), return_indices=True)",
        f"{F}.max_pool1d_with_indices(x[0, 0, 0], 3, 2, 1)",
        f"{F}.max_pool2d_with_indices(x[0, 0], 2)",
        f"{F}.max_pool3d_with_indices(x, 2, ceil_mode=True)",
        f"{F}.adaptive_max_pool1d_with_indices(x[0, 0, 0], 3)",
        f"{F}.adaptive_max_pool2d_with_indices(x[0, 0], (2, 3))",
        f"{F}.adaptive_max_pool3d_with_indices(x, (2, 3, 4))",
        "t.nn.MaxPool3d(2, 1, 1, return_indices=True)(x)",
        "t.nn.MaxPool3d((1, 2, 3), dilation=(2, 1, 1), ceil_mode=True)(x)",
        "t.nn.AvgPool3d(3, 2, 1, ceil_mode=True, count_include_pad=False)(x)",
        "t.nn.AvgPool3d(2, divisor_override=3)(u)",
        "t.nn.AdaptiveAvgPool3d((2, 3, 3))(x)",
        "t.nn.AdaptiveMaxPool3d(2, return_indices=True)(u)",
    ],
)
def test_3d_pooling_matches_torch(torch, expr):
    same_grads(torch, expr, x=X5, u=X4)


@pytest.mark.parametrize(
    "expr",
    [
        f"{F}.max_pool3d(x, 2)",
        f"{F}.max_pool3d(x, 3, 2, 1, return_indices=True)",
        f"{F}.avg_pool3d(x, 3, 2, 1, ceil_mode=True)",
        f"{F}.adaptive_avg_pool3d(x, (2, 4, 3))",
        f"{F}.adaptive_max_pool3d(x, (4, 3, 5), return_indices=True)",
    ],
)
def test_3d_pooling_float32_matches_torch(torch, expr):
    # float32 sums in another order than torch's loops: a few ulp apart
    outs = []
    for t in (dyngrad, torch):
        x = t.tensor(X32, requires_grad=True)
        out = eval(expr, {"t": t, "x": x})
        out = out if isinstance(out, tuple) else (out,)
        out[0].backward(t.ones_like(out[0]))
        outs.append([o.detach().numpy() for o in out] + [x.grad.numpy(), out[0].grad_fn.name()])
    for ours, theirs in zip(*outs):
        if isinstance(ours, str):
            assert ours == theirs
        else:
            assert ours.dtype == theirs.dtype
            np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-7)


def test_max_pool3d_ties_and_nan_pick_torch_index(torch):
    x = np.zeros((1, 1, 4, 4, 4))
    x[0, 0, 1, 1, 1] = np.nan
    x[0, 0, 3, 2, 3] = np.nan
    x[0, 0, 2, 0, 0] = 1.0
    x[0, 0, 3, 1, 1] = 1.0
    same_grads(torch, f"{F}.max_pool3d(x, 2, 1, return_indices=True)", x=x)
    same(torch, f"{F}.adaptive_max_pool3d(x, 3, return_indices=True)", x=x)


def test_integer_3d_pooling_matches_torch(torch):
    x = np.arange(2 * 4 * 4 * 5).reshape(1, 2, 4, 4, 5)
    same(torch, f"{F}.max_pool3d(x, 2, return_indices=True)", x=x)
    same(torch, f"{F}.avg_pool3d(x, 2)", x=x)


def test_double_backward_node_names_match_torch(torch):
    exprs = [
        f"{F}.max_pool3d(x, 2, 1)",
        f"{F}.avg_pool3d(x, 2, 1)",
        f"{F}.adaptive_avg_pool3d(x, 3)",
        f"{F}.adaptive_max_pool3d(x, 3)",
        f"{F}.adaptive_max_pool2d(x, 3)",
    ]
    for expr in exprs:
        names = []
        for t in (dyngrad, torch):
            x = t.tensor(X5 if "3d" in expr else X4, requires_grad=True)
            out = eval(expr, {"t": t, "x": x})
            cotangent = t.ones_like(out).requires_grad_()
            (grad,) = t.autograd.grad(out, x, cotangent, create_graph=True)
            names.append(grad.grad_fn.name())
        assert names[0] == names[1], (expr, names)


@pytest.mark.parametrize(
    "call",
    [
        lambda F, x: F.max_pool3d(x, 2, 1, 1, ceil_mode=True),
        lambda F, x: F.max_pool3d(x, (1, 2, 2), (2, 1, 1), 0, (1, 1, 2)),
        lambda F, x: F.avg_pool3d(x, 2, 1, 1, count_include_pad=False, ceil_mode=True),
        lambda F, x: F.avg_pool3d(x, (2, 1, 2), divisor_override=3),
        lambda F, x: F.adaptive_avg_pool3d(x, (2, 3, 2)),
        lambda F, x: F.adaptive_max_pool3d(x, (2, 1, 3)),
    ],
)
def test_3d_pooling_gradcheck_and_gradgradcheck(call):
    x = dyngrad.tensor(RNG.standard_normal((1, 2, 3, 4, 3)), requires_grad=True)

    def fn(t):
        return call(dyngrad.nn.functional, t)

    assert dyngrad.autograd.gradcheck(fn, (x,))
    assert dyngrad.autograd.gradgradcheck(fn, (x,))


def test_3d_pooling_module_reprs_match_torch(torch):
    for make in [
        lambda t: t.nn.MaxPool3d(2),
        lambda t: t.nn.MaxPool3d(
            (1, 2, 3), stride=1, padding=(0, 1, 1), dilation=2, ceil_mode=True
        ),
        lambda t: t.nn.AvgPool3d(2),
        lambda t: t.nn.AvgPool3d(3, 2, 1, True, False, 2),
        lambda t: t.nn.AdaptiveAvgPool3d((2, None, 3)),
        lambda t: t.nn.AdaptiveMaxPool3d(2, return_indices=True),
    ]:
        assert repr(make(dyngrad)) == repr(make(torch))


@pytest.mark.parametrize(
    "expr",
    [
        f"{F}.max_pool3d(x, 0, 1)",
        f"{F}.max_pool3d(x, 0)",
        f"{F}.max_pool3d(x, (2, 2))",
        f"{F}.max_pool3d(x, 2, (2, 2))",
        f"{F}.max_pool3d(x, 2, 2, (1, 1))",
        f"{F}.max_pool3d(x, 2, 2, 0, (1, 1))",
        f"{F}.max_pool3d(x, 2, -1)",
        f"{F}.max_pool3d(x, 2, 2, 2)",
        f"{F}.max_pool3d(x, 2, 2, -1)",
        f"{F}.max_pool3d(x, 2, 2, 0, 0)",
        f"{F}.max_pool3d(x[0, 0], 2)",
        f"{F}.max_pool3d(x[None], 2)",
        f"{F}.max_pool3d(x, 6)",
        f"{F}.max_pool3d(e, 2)",
        f"{F}.avg_pool3d(x, 0, 1)",
        f"{F}.avg_pool3d(x, (2, 2))",
        f"{F}.avg_pool3d(x, 2, (2, 2))",
        f"{F}.avg_pool3d(x, 2, 2, (1, 1))",
        f"{F}.avg_pool3d(x, 2, 0)",
        f"{F}.avg_pool3d(x, 2, 2, 2)",
        f"{F}.avg_pool3d(x[0, 0], 2)",
        f"{F}.avg_pool3d(x, 6)",
        f"{F}.avg_pool3d(x, (5, 7, 2))",
        f"{F}.avg_pool3d(x, 2, divisor_override=0)",
        f"{F}.avg_pool3d(e, 2)",
        f"{F}.adaptive_avg_pool3d(x[0, 0], 2)",
        f"{F}.adaptive_avg_pool3d(x, -1)",
        f"{F}.adaptive_avg_pool3d(x, (2, 2))",
        f"{F}.adaptive_avg_pool3d(e, 2)",
        f"{F}.adaptive_avg_pool3d(i, 2)",
        f"{F}.adaptive_max_pool3d(x[0, 0], 2)",
        f"{F}.adaptive_max_pool3d(x, -1)",
        f"{F}.adaptive_max_pool3d(x, (2, 2))",
        f"{F}.adaptive_max_pool3d(e, 2)",
        f"{F}.adaptive_max_pool3d(c, 2)",
        f"{F}.adaptive_max_pool3d(i, 2)",
    ],
)
def test_3d_pooling_errors_match_torch(torch, expr):
    same(
        torch,
        expr,
        x=X5,
        e=np.zeros((1, 2, 0, 3, 3)),
        c=np.zeros((1, 0, 3, 3, 3)),
        i=np.ones((1, 2, 4, 4, 4), np.int64),
    )


def test_empty_batch_and_zero_output_sizes_match_torch(torch):
    same(torch, f"{F}.max_pool3d(b, 2)", b=np.zeros((0, 2, 4, 4, 4)))
    same(torch, f"{F}.adaptive_max_pool3d(b, 2, return_indices=True)", b=np.zeros((0, 2, 4, 4, 4)))
    same(torch, f"{F}.adaptive_avg_pool3d(b, (2, 3, 1))", b=np.zeros((0, 2, 4, 4, 4)))
    same(torch, f"{F}.avg_pool3d(b, 2)", b=np.zeros((0, 2, 4, 4, 4)))
    same(torch, f"{F}.adaptive_avg_pool3d(x, (0, 2, 1))", x=X5)
    same(torch, f"{F}.adaptive_max_pool3d(x, (0, 2, 1))", x=X5)


def test_torch_level_aliases_match_torch(torch):
    same_grads(torch, "t.max_pool3d(x, 2, (), 1, 1, True)", x=X5)
    same_grads(torch, "t.max_pool1d_with_indices(x[0, 0, 0], 3, 2)", x=X5)
    w = RNG.standard_normal((3, 2, 2, 1, 2))
    same_grads(torch, "t.conv_transpose3d(x, w, None, 2)", x=X5[:, :, :2], w=w)


@pytest.mark.parametrize(
    "expr",
    [
        f"{F}.adaptive_avg_pool1d(x[0], 2)",
        f"{F}.adaptive_max_pool2d(c[0], 2)",
        f"{F}.adaptive_avg_pool2d(c[0], 2)",
        f"{F}.adaptive_avg_pool2d(x[0], (2, -1))",
        f"{F}.avg_pool2d(x[0], (1, 2, 3))",
        f"{F}.avg_pool2d(x[0], 2, (1, 2, 3))",
        f"{F}.max_pool2d(x[0], 0, 1)",
        f"{F}.max_pool2d(x[0], 2, 1, 0, 0)",
    ],
)
def test_2d_pooling_checks_still_match_torch(torch, expr):
    # the 2-d checks now share the n-d geometry code
    same(torch, expr, x=X5, c=np.zeros((1, 0, 3, 3, 3)))


def test_3d_modules_are_not_2d_modules_as_in_torch(torch):
    for t in (dyngrad, torch):
        assert not isinstance(t.nn.AvgPool3d(2), t.nn.AvgPool2d)
        assert not isinstance(t.nn.MaxPool3d(2), t.nn.MaxPool2d)
