"""Max unpooling (F.max_unpool1d/2d/3d, nn.MaxUnpool1d/2d/3d) against torch: values,
gradients, node names, output_size handling, reprs and errors."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from ..ops.oracle import same

RNG = np.random.default_rng(3)
X5 = RNG.standard_normal((2, 3, 4, 6, 4))
F = "t.nn.functional"


def _run(t, expr, requires_grad=True):
    """Pool the same input, unpool its values, and backward a fixed projection."""
    x = t.tensor(X5, requires_grad=requires_grad)
    env = {"t": t, "x": x, "F": t.nn.functional}
    out = eval(expr, env)
    weights = np.random.default_rng(1).standard_normal(tuple(out.shape))
    (out * t.tensor(weights)).sum().backward()
    return out.detach().numpy(), x.grad.numpy(), out.grad_fn.name()


@pytest.mark.parametrize(
    "expr",
    [
        "F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2)",
        "F.max_unpool3d(*F.max_pool3d(x, 3, 2, 1, return_indices=True), 3, 2, 1, (4, 6, 4))",
        "F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2, output_size=(5, 7, 5))",
        "F.max_unpool3d(*F.max_pool3d(x[0], 2, return_indices=True), 2)",
        "F.max_unpool2d(*F.max_pool2d(x[0], 2, return_indices=True), 2)",
        "F.max_unpool2d(*F.max_pool2d(x[0], 3, 2, 1, return_indices=True), 3, 2, 1, (6, 4))",
        "F.max_unpool2d(*F.max_pool2d(x[0, 0], 2, return_indices=True), 2, output_size=[6, 5])",
        "F.max_unpool2d(*F.max_pool2d(x[0], 2, return_indices=True), 2, output_size=(3, 4, 7, 4))",
        "F.max_unpool1d(*F.max_pool1d(x[0, 0], 2, return_indices=True), 2)",
        "F.max_unpool1d(*F.max_pool1d(x[0, :, 0], 3, 2, 1, return_indices=True), 3, 2, 1, [4])",
        "t.nn.MaxUnpool3d(2)(*t.nn.MaxPool3d(2, return_indices=True)(x))",
        "t.nn.MaxUnpool2d(2, 2)(*t.nn.MaxPool2d(2, return_indices=True)(x[1]), (6, 5))",
        "t.nn.MaxUnpool1d(2)(*t.nn.MaxPool1d(2, return_indices=True)(x[0, 0]))",
    ],
)
def test_max_unpool_matches_torch(torch, expr):
    ours, theirs = _run(dyngrad, expr), _run(torch, expr)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    assert ours[2] == theirs[2]


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_unpool_gradcheck_and_gradgradcheck(nd):
    shape = (2, 3, 4, 4, 4)[-nd - 2 :]
    x = dyngrad.tensor(RNG.standard_normal(shape))
    pool = getattr(dyngrad.nn.functional, f"max_pool{nd}d")
    unpool = getattr(dyngrad.nn.functional, f"max_unpool{nd}d")
    values, indices = pool(x, 2, return_indices=True)
    values.requires_grad_()

    def fn(v):
        return unpool(v, indices, 2)

    assert dyngrad.autograd.gradcheck(fn, (values,))
    assert dyngrad.autograd.gradgradcheck(fn, (values,))


def test_max_unpool_module_reprs_match_torch(torch):
    for make in [
        lambda t: t.nn.MaxUnpool1d(2),
        lambda t: t.nn.MaxUnpool2d(3, 2, 1),
        lambda t: t.nn.MaxUnpool3d((1, 2, 3), stride=2, padding=(0, 1, 0)),
    ]:
        assert repr(make(dyngrad)) == repr(make(torch))


def _indices(shape, high, low=0):
    return np.random.default_rng(0).integers(low, high, shape)


@pytest.mark.parametrize(
    "expr",
    [
        f"{F}.max_unpool3d(v3, i3 * 100, 2)",
        f"{F}.max_unpool2d(v2, i2 * 100, 2)",
        f"{F}.max_unpool1d(v1, i1.index_fill(-1, t.tensor([1]), 4), 2)",
        f"{F}.max_unpool2d(v2, i2 - 100, 2)",
        f"{F}.max_unpool2d(v2, i2.index_fill(-1, t.tensor([0]), 99), 2)",
        f"{F}.max_unpool3d(v3, i3.index_fill(-1, t.tensor([1]), 99), 2)",
        f"{F}.max_unpool2d(v2, i2[:1], 2)",
        f"{F}.max_unpool2d(v2, i2.int(), 2)",
        f"{F}.max_unpool2d(v2[0, 0], i2[0, 0], 2)",
        f"{F}.max_unpool2d(v2[None], i2[None], 2)",
        f"{F}.max_unpool3d(v3[0, 0], i3[0, 0], 2)",
        f"{F}.max_unpool2d(v2, i2, 2, output_size=(9, 9))",
        f"{F}.max_unpool2d(v2, i2, 2, output_size=(9, 9, 9))",
        f"{F}.max_unpool3d(v3, i3, 2, stride=0)",
        f"{F}.max_unpool2d(v2.long(), i2, 2)",
    ],
)
def test_max_unpool_errors_match_torch(torch, expr):
    # one index per 2-wide window position: the invalid ones come from scaling them
    same(
        torch,
        expr,
        v3=RNG.standard_normal((1, 2, 2, 2, 2)),
        i3=np.arange(16).reshape(1, 2, 2, 2, 2) % 8 + 1,
        v2=RNG.standard_normal((2, 4, 2, 2)),
        i2=np.arange(32).reshape(2, 4, 2, 2) % 4 + 1,
        v1=RNG.standard_normal((3, 2)),
        i1=np.array([[0, 3], [1, 2], [0, 2]]) + 1,
    )
