"""F.conv_transpose3d and nn.ConvTranspose3d against torch: values, gradients of input,
weight and bias, node names, output_size, reprs and errors."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from ..ops.oracle import same, same_grads

RNG = np.random.default_rng(7)
X = RNG.standard_normal((2, 4, 3, 4, 3))
W = RNG.standard_normal((4, 3, 2, 3, 2))
WG = RNG.standard_normal((4, 2, 2, 2, 2))
B = RNG.standard_normal(3)
B4 = RNG.standard_normal(4)
F = "t.nn.functional.conv_transpose3d"


@pytest.mark.parametrize(
    "expr",
    [
        f"{F}(x, w)",
        f"{F}(x, w, b)",
        f"{F}(x, w, b, stride=2)",
        f"{F}(x, w, b, (2, 1, 3), (1, 0, 1), (1, 0, 2))",
        f"{F}(x, w, None, 2, 1, 1, 1, 2)",
        f"{F}(x, v, b4, 1, 0, 0, 2)",
        f"{F}(x[0], w, b)",
    ],
)
def test_conv_transpose3d_matches_torch(torch, expr):
    same_grads(torch, expr, x=X, w=W, v=WG, b=B, b4=B4)


@pytest.mark.parametrize(
    "expr",
    [
        f"{F}(x, w, b, 1, 0, 2)",
        f"{F}(x[0, 0], w)",
        f"{F}(x[:, :3], w)",
        f"{F}(x, w, b4)",
    ],
)
def test_conv_transpose3d_errors_match_torch(torch, expr):
    same(torch, expr, x=X, w=W, b=B, b4=B4)


def test_conv_transpose3d_module_matches_torch(torch):
    theirs = torch.nn.ConvTranspose3d(4, 6, (2, 3, 2), stride=2, padding=1, groups=2, dilation=1)
    ours = dyngrad.nn.ConvTranspose3d(4, 6, (2, 3, 2), stride=2, padding=1, groups=2, dilation=1)
    assert repr(ours) == repr(theirs)
    ours.load_state_dict(
        {k: dyngrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    )
    for size in (None, (5, 8, 5)):
        xs = [t.tensor(X.astype(np.float32), requires_grad=True) for t in (dyngrad, torch)]
        outs = [m(x, output_size=size) for m, x in zip((ours, theirs), xs)]
        for out in outs:
            out.sum().backward()
        np.testing.assert_allclose(
            outs[0].detach().numpy(), outs[1].detach().numpy(), rtol=1e-5, atol=1e-5
        )
        np.testing.assert_allclose(xs[0].grad.numpy(), xs[1].grad.numpy(), rtol=1e-5, atol=1e-5)
        assert outs[0].grad_fn.name() == outs[1].grad_fn.name()
    assert repr(dyngrad.nn.ConvTranspose3d(2, 3, 2)) == repr(torch.nn.ConvTranspose3d(2, 3, 2))


def test_conv_transpose3d_gradcheck_and_gradgradcheck():
    x = dyngrad.tensor(RNG.standard_normal((1, 2, 2, 3, 2)), requires_grad=True)
    w = dyngrad.tensor(RNG.standard_normal((2, 2, 2, 2, 2)), requires_grad=True)
    b = dyngrad.tensor(RNG.standard_normal(2), requires_grad=True)

    def fn(x, w, b):
        return dyngrad.nn.functional.conv_transpose3d(x, w, b, (2, 1, 1), 1, (1, 0, 0))

    assert dyngrad.autograd.gradcheck(fn, (x, w, b))
    assert dyngrad.autograd.gradgradcheck(fn, (x, w, b))
