"""torch.cond and torch.while_loop in eager mode, and torch.svd_lowrank / pca_lowrank, against
torch: values, gradients (operands and closed-over tensors), grad_fn names, errors."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import dyngrad


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():  # torch's Dynamo may warn while it compiles the branches
        warnings.simplefilter("ignore")
        yield


def test_cond_runs_the_chosen_branch_with_torchs_node(lib):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    w = lib.tensor(3.0, requires_grad=True)
    y = lib.cond(x.sum() > 0, lambda x: x.sin() * w, lambda x: x.cos(), (x,))
    assert y.grad_fn.name() == "CondAutogradOpBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.cos([0.5, -1.0, 2.0]), rtol=1e-6)
    assert abs(w.grad.item() - float(np.sin([0.5, -1.0, 2.0]).sum())) < 1e-6


def test_cond_with_nested_results_and_a_false_tensor(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    a, b = lib.cond(lib.tensor(False), lambda x: (x + 1, x * 2), lambda x: (x - 1, x * 3), [x])
    assert a.tolist() == [0.0, 1.0] and b.tolist() == [3.0, 6.0]
    assert a.grad_fn.name() == b.grad_fn.name() == "CondAutogradOpBackward"


def test_cond_with_a_python_predicate_is_just_the_branch(lib):
    x = lib.ones(2, requires_grad=True)
    assert lib.cond(True, lambda x: x + 1, lambda x: x - 1, (x,)).grad_fn.name() == "AddBackward0"
    assert lib.cond(0, lambda x: x + 1, lambda x: x - 1, (x,)).tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    "call,message",
    [
        (
            lambda t, x: t.cond("a", t.sin, t.cos, (x,)),
            "Expected pred to be bool or tensor, but got a.",
        ),
        (
            lambda t, x: t.cond(t.tensor([True, False]), t.sin, t.cos, (x,)),
            "Expected pred to be bool or single-element tensor, but got",
        ),
        (
            lambda t, x: t.cond(t.tensor(True), 3, t.cos, (x,)),
            "Expect both branches to be callable.",
        ),
        (
            lambda t, x: t.cond(t.tensor(True), t.sin, t.cos, x),
            "Expect operands to be a tuple of possibly nested dict/list/tuple that only consists",
        ),
        (
            lambda t, x: t.cond(t.tensor(True), t.sin, t.cos, (x, 2)),
            "Expect operands to be a tuple of possibly nested dict/list/tuple that only consists",
        ),
    ],
)
def test_cond_argument_errors_as_torch(lib, call, message):
    with pytest.raises(RuntimeError, match=re.escape(message)):
        call(lib, lib.ones(3))


def test_while_loop_carries_values_and_gradients_as_torch(lib):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    i, y = lib.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x.sin()), (lib.tensor(0), x))
    assert i.item() == 3 and y.grad_fn.name() == "WhileLoopAutogradOpBackward"
    y.sum().backward()
    a = np.array([0.5, -1.0, 2.0])
    expected = np.cos(a) * np.cos(np.sin(a)) * np.cos(np.sin(np.sin(a)))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)


def test_while_loop_that_never_runs_returns_clones(lib):
    x = lib.ones(2, requires_grad=True)
    i, y = lib.while_loop(lambda i, x: i < 0, lambda i, x: (i + 1, x * 2), (lib.tensor(0), x))
    assert y is not x and y.tolist() == [1.0, 1.0] and i.item() == 0


@pytest.mark.parametrize(
    "call,error,message",
    [
        (
            lambda t, x: t.while_loop(lambda i, x: i < 3, 3, (t.tensor(0), x)),
            RuntimeError,
            "Expect cond_fn and body_fn to be callable.",
        ),
        (
            lambda t, x: t.while_loop(
                lambda i, x: i < 3, lambda i, x: (i + 1, x), (t.tensor(0), 1.5)
            ),
            AssertionError,
            "can only be of",
        ),
    ],
)
def test_while_loop_argument_errors_as_torch(lib, call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call(lib, lib.ones(3))


def test_while_loop_checks_cond_and_body_results():
    x = dyngrad.ones(3)
    with pytest.raises(
        RuntimeError, match="cond_fn must return a boolean scalar tensor or a boolean"
    ):
        dyngrad.while_loop(lambda i, x: i, lambda i, x: (i + 1, x), (dyngrad.tensor(1), x))
    with pytest.raises(AssertionError, match="body_fn should return the same number of elements"):
        dyngrad.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1,), (dyngrad.tensor(0), x))


def _aligned(U, V):
    # an SVD's columns are defined up to sign: make each U column's largest entry positive
    signs = np.sign(U[np.abs(U).argmax(0), range(U.shape[1])])
    return U * signs, V * signs


@pytest.mark.parametrize("shape", [(8, 5), (4, 7)])
def test_svd_lowrank_matches_torch_for_the_same_seed(shape, torch):
    results = []
    for lib in (dyngrad, torch):
        lib.manual_seed(0)
        A = lib.randn(*shape, dtype=lib.float64, requires_grad=True)
        U, S, V = lib.svd_lowrank(A, q=3)
        # a loss that does not depend on the columns' signs
        ((U * S).matmul(V.mT) ** 2).sum().backward()
        u, v = _aligned(U.detach().numpy(), V.detach().numpy())
        results.append((u, S.detach().numpy(), v, A.grad.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


def test_pca_lowrank_matches_torch_for_the_same_seed(torch):
    results = []
    for lib in (dyngrad, torch):
        lib.manual_seed(1)
        A = lib.randn(10, 4, dtype=lib.float64)
        U, S, V = lib.pca_lowrank(A, q=2)
        results.append((*_aligned(U.numpy(), V.numpy()), S.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


def test_pca_lowrank_argument_errors_as_torch(lib):
    with pytest.raises(ValueError, match=re.escape("q(=9) must be non-negative integer")):
        lib.pca_lowrank(lib.ones(5, 4), q=9)
    with pytest.raises(ValueError, match=re.escape("niter(=-1) must be non-negative integer")):
        lib.pca_lowrank(lib.ones(5, 4), niter=-1)
