"""The in-place fused products (addmm_, addmv_, addr_, baddbmm_, addbmm_) and fill_diagonal_
against torch: values, gradients, nodes, version counters and errors."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

R = np.random.default_rng(3)

# method, self's shape, the two operands' shapes
PRODUCTS = {
    "addmm_": ((2, 3), (2, 4), (4, 3)),
    "addmv_": ((3,), (3, 4), (4,)),
    "addr_": ((2, 3), (2,), (3,)),
    "baddbmm_": ((5, 2, 3), (5, 2, 4), (5, 4, 3)),
    "addbmm_": ((2, 3), (5, 2, 4), (5, 4, 3)),
}
ARRAYS = {name: [R.standard_normal(s) for s in shapes] for name, shapes in PRODUCTS.items()}


def _run(lib, name, beta, alpha):
    base, a, b = (lib.tensor(x, requires_grad=True) for x in ARRAYS[name])
    out = base * 1
    version = out._version
    result = getattr(out, name)(a, b, beta=beta, alpha=alpha)
    assert result is out and out._version == version + 1
    names = [type(out.grad_fn).__name__] + [type(f).__name__ for f, _ in out.grad_fn.next_functions]
    saved = (out.grad_fn._saved_beta, out.grad_fn._saved_alpha)
    cotangent = lib.tensor(np.linspace(-1, 1, out.numel()).reshape(out.shape))
    (out * cotangent).sum().backward()
    grads = [t.grad.numpy() for t in (base, a, b)]
    return out.detach().numpy(), grads, names, saved


@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, -2.0), (0, 3)])
@pytest.mark.parametrize("name", list(PRODUCTS))
def test_inplace_products_match_torch(name, beta, alpha, torch):
    ours, theirs = _run(dyngrad, name, beta, alpha), _run(torch, name, beta, alpha)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-12)
    for mine, expected in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(mine, expected, rtol=1e-12, atol=1e-12)
    assert ours[2:] == theirs[2:]


@pytest.mark.parametrize("name", list(PRODUCTS))
def test_inplace_products_pass_gradcheck(name):
    inputs = [dyngrad.tensor(x, requires_grad=True) for x in ARRAYS[name]]

    def fn(base, a, b):
        return getattr(base.clone(), name)(a, b, beta=0.7, alpha=1.3)

    assert dyngrad.autograd.gradcheck(fn, inputs)
    assert dyngrad.autograd.gradgradcheck(fn, inputs)


@pytest.mark.parametrize("name", list(PRODUCTS))
def test_inplace_product_on_a_leaf_raises(name, lib):
    base, a, b = (lib.tensor(x) for x in ARRAYS[name])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used"):
        getattr(base.requires_grad_(), name)(a, b)


def test_inplace_product_invalidates_saved_self(lib):
    base, a, b = (lib.tensor(x, requires_grad=True) for x in ARRAYS["addmm_"])
    out = base * 1
    saved = out.sin()  # saves out
    out.addmm_(a, b)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation"):
        saved.sum().backward()


def test_inplace_product_through_a_view_is_copyslices(torch):
    grads, start = [], R.standard_normal((3, 4))
    for lib in (dyngrad, torch):
        base = lib.tensor(start, requires_grad=True)
        mat = lib.tensor(ARRAYS["addmv_"][1], requires_grad=True)
        vec = lib.tensor(ARRAYS["addmv_"][2], requires_grad=True)
        out = base * 2
        out[:, 1].addmv_(mat, vec, alpha=0.5)
        assert type(out.grad_fn).__name__ == "CopySlices"
        out.pow(2).sum().backward()
        grads.append([t.grad.numpy() for t in (base, mat, vec)])
    for mine, expected in zip(*grads):
        np.testing.assert_allclose(mine, expected, rtol=1e-12)


def test_inplace_products_on_integers_match_torch(torch):
    results = []
    for lib in (dyngrad, torch):
        out = lib.arange(6).reshape(2, 3)
        out.addmm_(lib.ones(2, 4, dtype=lib.int64), lib.arange(12).reshape(4, 3), beta=3, alpha=2)
        results.append(out.numpy())
    np.testing.assert_array_equal(*results)


ERRORS = [
    lambda t: t.zeros(2, 3).addmm_(t.randn(4), t.randn(4, 3)),
    lambda t: t.zeros(2, 3).addmm_(t.randn(2, 5), t.randn(4, 3)),
    lambda t: t.zeros(1, 3).addmm_(t.randn(2, 4), t.randn(4, 3)),
    lambda t: t.zeros(2, 2, 3).addmm_(t.randn(2, 4), t.randn(4, 3)),
    lambda t: t.zeros(2, 3).double().addmm_(t.randn(2, 4), t.randn(4, 3)),
    lambda t: t.zeros(2, 3).addmm_(t.randn(2, 4).double(), t.randn(4, 3)),
    lambda t: t.zeros(1).addmv_(t.randn(3, 4), t.randn(4)),
    lambda t: t.zeros(3, 1).addmv_(t.randn(3, 4), t.randn(4)),
    lambda t: t.zeros(3).addmv_(t.randn(3, 4), t.randn(5)),
    lambda t: t.zeros(3).double().addmv_(t.randn(3, 4), t.randn(4)),
    lambda t: t.zeros(3).addr_(t.randn(2), t.randn(3)),
    lambda t: t.zeros(1, 3).addr_(t.randn(2), t.randn(3)),
    lambda t: t.zeros(2, 3).addr_(t.randn(2, 1), t.randn(3)),
    lambda t: t.zeros(1, 2, 3).baddbmm_(t.randn(5, 2, 4), t.randn(5, 4, 3)),
    lambda t: t.zeros(5, 2, 3).double().baddbmm_(t.randn(5, 2, 4), t.randn(5, 4, 3)),
    lambda t: t.zeros(5, 2, 3).long().baddbmm_(t.randn(5, 2, 4), t.randn(5, 4, 3)),
    lambda t: t.zeros(3, 2, 3).addbmm_(t.randn(5, 2, 4), t.randn(5, 4, 3)),
    lambda t: t.zeros(2, 3).double().addbmm_(t.randn(5, 2, 4), t.randn(5, 4, 3)),
    lambda t: t.zeros(2, 3).addbmm_(t.randn(5, 2, 4), t.randn(4, 4, 3)),
    lambda t: t.zeros(2, 3).addbmm_(t.randn(5, 2, 4), t.randn(5, 3, 3)),
]


@pytest.mark.parametrize("call", ERRORS)
def test_inplace_product_errors_match_torch(call, torch):
    messages = []
    for lib in (torch, dyngrad):
        with pytest.raises(RuntimeError) as info:
            call(lib)
        messages.append(str(info.value).split("\n")[0])
    assert messages[1].startswith(messages[0])


@pytest.mark.parametrize(
    "shape,wrap",
    [((3, 3), False), ((7, 3), True), ((10, 3), True), ((7, 3), False), ((3, 7), True)]
    + [((2, 2, 2), False), ((0, 0), False), ((4, 4, 4, 4), True)],
)
def test_fill_diagonal_matches_torch(shape, wrap, torch):
    results = []
    for lib in (dyngrad, torch):
        base = lib.tensor(
            np.linspace(-1, 1, int(np.prod(shape))).reshape(shape), requires_grad=True
        )
        out = base * 2
        assert out.fill_diagonal_(-1.5, wrap=wrap) is out
        names = [type(out.grad_fn).__name__] if out.grad_fn else []
        out.pow(2).sum().backward()
        results.append((out.detach().numpy(), base.grad.numpy(), names, out._version))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    assert results[0][2:] == results[1][2:]


def test_fill_diagonal_on_views_and_integers(lib):
    big = lib.zeros(5, 5)
    big[1:, 1:].fill_diagonal_(1)
    assert big.diagonal().tolist() == [0, 1, 1, 1, 1]
    assert lib.zeros(3, 3, dtype=lib.int64).fill_diagonal_(2.7).diagonal().tolist() == [2, 2, 2]
    t = lib.zeros(4, 4).t().fill_diagonal_(True)
    assert t.sum().item() == 4


@pytest.mark.parametrize(
    "shape,message",
    [((3,), "dimensions must larger than 1"), ((2, 3, 3), "all dimensions of input must be")],
)
def test_fill_diagonal_errors(shape, message, lib):
    with pytest.raises(RuntimeError, match=message):
        lib.zeros(*shape).fill_diagonal_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        lib.zeros(2, 2, requires_grad=True).fill_diagonal_(1)


def test_fill_diagonal_passes_gradcheck():
    inp = dyngrad.randn(7, 3, dtype=dyngrad.float64, requires_grad=True)

    def fn(t):
        return (t * t).fill_diagonal_(0.5, wrap=True)

    assert dyngrad.autograd.gradcheck(fn, (inp,))
    assert dyngrad.autograd.gradgradcheck(fn, (inp,))
