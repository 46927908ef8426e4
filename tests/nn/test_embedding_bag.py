"""nn.EmbeddingBag and F.embedding_bag against torch: every mode, offsets, per-sample
weights, include_last_offset, padding_idx; values, nodes, gradients, errors, reprs, init."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from ..ops.oracle import same, same_grads

R = np.random.default_rng(3)
W = R.standard_normal((10, 3))
I = np.array([1, 2, 4, 5, 4, 3, 2, 9])  # noqa: E741
I2 = np.array([[1, 2, 4, 4], [5, 3, 3, 9]])
OFF = np.array([0, 3, 3])
PSW = R.standard_normal(8)
PSW2 = R.standard_normal((2, 4))
INPUTS = dict(w=W, i=I, i2=I2, off=OFF, psw=PSW, psw2=PSW2)
F = "t.nn.functional.embedding_bag"

EXPRS = [
    F + "(i, w, off)",
    F + "(i, w, off, mode='sum')",
    F + "(i, w, off, mode='max')",
    F + "(i2, w)",
    F + "(i2, w, mode='max')",
    F + "(i2.int(), w, mode='sum')",
    F + "(i, w, off, mode='sum', per_sample_weights=psw)",
    F + "(i2, w, mode='sum', per_sample_weights=psw2)",
    F + "(i, w, off[:2], mode='sum', include_last_offset=True)",
    F + "(i, w, t.tensor([0, 3, 5]), include_last_offset=True, mode='sum', per_sample_weights=psw)",
    F + "(i, w, t.tensor([0, 8]), mode='max')",
    F + "(i, w, off, padding_idx=4)",
    F + "(i, w, off, mode='sum', padding_idx=2, per_sample_weights=psw)",
    F + "(i, w, off, mode='max', padding_idx=-6)",
    F + "(i, w, off, scale_grad_by_freq=True)",
    F + "(i, w, off, mode='sum', scale_grad_by_freq=True, padding_idx=4)",
    F + "(i, w.float(), off)",
    "t.nn.EmbeddingBag.from_pretrained(w.detach(), freeze=False, mode='sum')(i, off, psw)",
    "t.nn.EmbeddingBag.from_pretrained(w.detach(), mode='max', padding_idx=2)(i2)",
]


@pytest.mark.parametrize("expr", EXPRS)
def test_embedding_bag_matches_torch(torch, expr):
    same(torch, expr, requires_grad=True, **INPUTS)
    if "padding_idx=2)(i2)" not in expr:  # (a frozen table: nothing requires grad)
        same_grads(torch, expr, **INPUTS)


def test_embedding_bag_takes_the_old_argument_order_with_a_warning(torch):
    results = []
    for lib in (dyngrad, torch):
        with pytest.warns(UserWarning, match="Argument order of nn.functional.embedding_bag"):
            out = lib.nn.functional.embedding_bag(lib.tensor(W), lib.tensor(I), lib.tensor(OFF))
        results.append(out.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def test_embedding_bag_empty_bags_are_zero():
    # (compared with fixed values: torch 2.13 crashes on some empty cases under grad)
    w = dyngrad.tensor(W, requires_grad=True)
    f = dyngrad.nn.functional.embedding_bag
    out = f(dyngrad.tensor(I[:0]), w, dyngrad.tensor([0, 0]), mode="max")
    assert out.shape == (2, 3) and not out.detach().numpy().any()
    out.sum().backward()
    assert not w.grad.numpy().any()
    assert f(dyngrad.tensor(I), w, dyngrad.tensor(OFF[:0])).shape == (0, 3)


def test_embedding_bag_max_ties_go_to_the_first_row(torch):
    w = np.array([[1.0, 5.0], [1.0, 2.0], [0.5, 5.0]])
    same_grads(torch, F + "(i, w, t.tensor([0]), mode='max')", i=np.array([1, 0, 2]), w=w)


ERRORS = [
    F + "(i, w, t.tensor([1, 3]))",
    F + "(i, w, t.tensor([0, 9]))",
    F + "(i + 5, w, off)",
    F + "(i - 2, w, off)",
    F + "(i, w, off, padding_idx=10)",
    F + "(i, w, off, mode='foo')",
    F + "(i, w)",
    F + "(i2, w, off)",
    F + "(i2.reshape(2, 2, 2), w)",
    F + "(i, w, off.reshape(1, 3))",
    F + "(i, w, off, per_sample_weights=psw)",
    F + "(i, w, off, mode='sum', per_sample_weights=psw[:7])",
    F + "(i.double(), w, off)",
    F + "(i, w, off.double())",
    F + "(i, w.reshape(-1), off)",
    F + "(i, w, off, mode='max', scale_grad_by_freq=True)",
    F + "(i, w.long(), off)",
    "t.nn.EmbeddingBag(10, 3, padding_idx=12)",
    "t.nn.EmbeddingBag.from_pretrained(w.reshape(-1))",
    "t.nn.EmbeddingBag(10, 3, _weight=w[:5])",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_embedding_bag_errors_match_torch(torch, expr):
    same(torch, expr, **INPUTS)


def test_embedding_bag_passes_gradcheck():
    w = dyngrad.tensor(W, requires_grad=True)
    psw = dyngrad.tensor(PSW, requires_grad=True)
    i, off = dyngrad.tensor(I), dyngrad.tensor(OFF)
    f = dyngrad.nn.functional.embedding_bag
    for mode in ("sum", "mean", "max"):
        assert dyngrad.autograd.gradcheck(lambda w: f(i, w, off, mode=mode, padding_idx=4), (w,))
    assert dyngrad.autograd.gradcheck(
        lambda w, p: f(i, w, off, mode="sum", per_sample_weights=p), (w, psw)
    )


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_double_backward_refused_as_torch(torch, mode):
    messages = []
    for lib in (dyngrad, torch):
        w = lib.tensor(W, requires_grad=True)
        out = lib.nn.functional.embedding_bag(lib.tensor(I), w, lib.tensor(OFF), mode=mode)
        (g,) = lib.autograd.grad((out * out).sum(), w, create_graph=True)
        assert g.grad_fn.name() == "EmbeddingBagBackwardBackward0"
        with pytest.raises(NotImplementedError) as info:
            g.sum().backward()
        messages.append(str(info.value).splitlines()[0])
    assert messages[0] == messages[1]


def test_per_sample_weights_double_backward_refused_as_torch(torch):
    messages = []
    for lib in (dyngrad, torch):
        w = lib.tensor(W, requires_grad=True)
        psw = lib.tensor(PSW, requires_grad=True)
        out = lib.nn.functional.embedding_bag(
            lib.tensor(I), w, lib.tensor(OFF), mode="sum", per_sample_weights=psw
        )
        _, gp = lib.autograd.grad((out * out).sum(), (w, psw), create_graph=True)
        with pytest.raises(RuntimeError) as info:
            gp.sum().backward()
        messages.append(str(info.value).splitlines()[0])
    assert messages[0] == messages[1]


@pytest.mark.parametrize(
    "make",
    [
        "EmbeddingBag(10, 3)",
        "EmbeddingBag(10, 3, max_norm=1.0, norm_type=1.0, mode='max', padding_idx=-2, "
        "include_last_offset=True)",
        "EmbeddingBag(10, 3, scale_grad_by_freq=True, mode='sum', padding_idx=2)",
    ],
)
def test_embedding_bag_module_matches_torch(torch, make):
    mods = []
    for lib in (dyngrad, torch):
        lib.manual_seed(4)
        mods.append(eval("lib.nn." + make, {"lib": lib}))
    ours, theirs = mods
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    np.testing.assert_array_equal(ours.weight.detach().numpy(), theirs.weight.detach().numpy())
    assert ours.padding_idx == theirs.padding_idx


def test_embedding_bag_max_norm_renormalises_rows(torch):
    results = []
    for lib in (dyngrad, torch):
        bag = lib.nn.EmbeddingBag.from_pretrained(lib.tensor(W), max_norm=1.0, mode="sum")
        out = bag(lib.tensor(I), lib.tensor(OFF))
        results.append((out.numpy(), bag.weight.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)
