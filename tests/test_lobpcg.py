"""torch.lobpcg against torch: the eigenpairs, the generator's stream, the gradient (first and
second order, symmetric), the node and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad


def _spd(lib, seed: int, *shape):
    lib.manual_seed(seed)
    a = lib.rand(*shape, dtype=lib.float64)
    return (a @ a.mT) / 10 + lib.eye(shape[-1], dtype=lib.float64)


def _signed(vectors):
    # eigenvectors up to sign: the largest entry of each column made positive
    arr = vectors.detach().numpy()
    rows = np.abs(arr).argmax(axis=-2)[..., None, :]
    return arr * np.sign(np.take_along_axis(arr, rows, axis=-2))


@pytest.mark.parametrize("shape", [(9, 9), (2, 9, 9)])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("generalized", [False, True])
def test_eigenpairs_and_the_generator_stream_match_torch(torch, shape, largest, generalized):
    results = []
    for lib in (dyngrad, torch):
        A = _spd(lib, 0, *shape)
        B = _spd(lib, 1, *shape) if generalized else None
        lib.manual_seed(5)
        values, vectors = lib.lobpcg(A, k=2, B=B, largest=largest)
        results.append((values.numpy(), _signed(vectors), lib.randn(3).numpy()))
    (ours_e, ours_x, ours_next), (their_e, their_x, their_next) = results
    np.testing.assert_allclose(ours_e, their_e, rtol=1e-6)
    np.testing.assert_allclose(ours_x, their_x, atol=1e-5)
    np.testing.assert_array_equal(ours_next, their_next)  # the same draws were made


def _sign_fixed(k, largest):
    def func(A):
        values, vectors = dyngrad.lobpcg(A, k=k, largest=largest)
        _, rows = vectors.abs().max(-2, keepdim=True)
        return values, vectors * vectors.gather(-2, rows).sign()

    return func


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("shape", [(6, 6), (2, 6, 6)])
def test_gradients_first_and_second_order(largest, shape):
    A = _spd(dyngrad, 2, *shape).requires_grad_(True)
    func = _sign_fixed(2, largest)
    assert dyngrad.autograd.gradcheck(func, (A,))
    assert dyngrad.autograd.gradgradcheck(func, (A,))
    values, vectors = func(A)
    assert values.grad_fn.name() == "LOBPCGAutogradFunctionBackward"
    (values.sum() + vectors.sum()).backward()
    np.testing.assert_array_equal(A.grad.numpy(), A.grad.mT.numpy())


def test_gradient_matches_torch(torch):
    grads = []
    for lib in (dyngrad, torch):
        A = _spd(lib, 3, 7, 7).requires_grad_(True)
        values, vectors = lib.lobpcg(A, k=2)
        (values.sum() + (vectors * vectors).sum()).backward()
        grads.append(A.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-6)


def test_errors_match_torch(lib):
    A = _spd(lib, 0, 5, 5)
    with pytest.raises(ValueError, match=r"not applicable when the number of A rows \(=5\)"):
        lib.lobpcg(A, k=2)
    B = _spd(lib, 1, 6, 6)
    values, _ = lib.lobpcg(_spd(lib, 0, 6, 6).requires_grad_(True), k=1, B=B)
    with pytest.raises(ValueError, match=r"does not support backward with B != I yet"):
        values.sum().backward()
