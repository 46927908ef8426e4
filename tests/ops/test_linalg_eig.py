"""linalg.eig and linalg.eigvals against torch: values, vectors (LAPACK's normalization),
gradients of phase-invariant losses (first and second order), node names and errors."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad


def _matrix(lib, seed, *shape, dtype="float64"):
    lib.manual_seed(seed)
    return lib.randn(*shape, dtype=getattr(lib, dtype))


def _phase_fixed(vectors: np.ndarray) -> np.ndarray:
    # each column times the phase that makes its largest entry real and positive: LAPACK
    # builds (torch's MKL, NumPy's OpenBLAS) may return a real eigenvector negated
    rows = np.abs(vectors).argmax(axis=-2)[..., None, :]
    top = np.take_along_axis(vectors, rows, axis=-2)
    return vectors * (np.abs(top) / top)


def _loss(lib, A):
    values, vectors = lib.linalg.eig(A)
    weights = lib.arange(A.shape[-1], dtype=A.dtype)
    return (values.abs() ** 2).sum() + ((vectors.abs() ** 2) * weights).sum()


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_vectors_and_gradients_match_torch(torch, shape, dtype):
    results = []
    for lib in (dyngrad, torch):
        A = _matrix(lib, 0, *shape, dtype=dtype).requires_grad_(True)
        values, vectors = lib.linalg.eig(A)
        assert values.grad_fn.name() == "LinalgEigBackward0"
        _loss(lib, A).backward()
        results.append(
            (
                str(values.dtype),
                values.detach().numpy(),
                _phase_fixed(vectors.detach().numpy()),
                A.grad.numpy(),
            )
        )
    ours, theirs = results
    assert ours[0] == theirs[0]
    tol = 1e-4 if dtype == "float32" else 1e-9
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, atol=tol, rtol=tol)


def test_eigvals_gradient_matches_torch(torch):
    grads = []
    for lib in (dyngrad, torch):
        A = _matrix(lib, 1, 5, 5).requires_grad_(True)
        values = lib.linalg.eigvals(A)
        assert values.grad_fn.name() == "LinalgEigBackward0"
        (values.real * lib.arange(5.0, dtype=lib.float64)).sum().backward()
        grads.append(A.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-9)


def test_gradcheck_and_gradgradcheck():
    A = _matrix(dyngrad, 2, 3, 3).requires_grad_(True)
    assert dyngrad.autograd.gradcheck(lambda a: _loss(dyngrad, a), (A,))
    assert dyngrad.autograd.gradgradcheck(lambda a: _loss(dyngrad, a), (A,))
    assert dyngrad.autograd.gradcheck(lambda a: dyngrad.linalg.eigvals(a).abs(), (A,))


def test_errors_match_torch(lib):
    with pytest.raises(RuntimeError, match="linalg.eig: A must be batches of square matrices"):
        lib.linalg.eig(lib.ones(2, 3))
    with pytest.raises(RuntimeError, match="input tensor should not contain infs or NaNs"):
        lib.linalg.eig(lib.tensor([[float("nan"), 1.0], [1.0, 1.0]]))
    A = _matrix(lib, 3, 3, 3).requires_grad_(True)
    _, vectors = lib.linalg.eig(A)
    with pytest.raises(RuntimeError, match="specified up to multiplication by e"):
        vectors.real.sum().backward()  # depends on each column's phase
