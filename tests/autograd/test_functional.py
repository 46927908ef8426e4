"""torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp against the real torch.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it); tests taking
`torch` compare dyngrad's results with torch's on the same inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from .conftest import first_line

X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
Y = [0.3, -0.2, 0.9]


def inputs(lib):
    return lib.tensor(X, dtype=lib.float64), lib.tensor(Y, dtype=lib.float64)


def scalar_fn(x, y):
    return (x.sin() * y).sum() + (x * x).sum() * y.exp().sum()


def vector_fn(x, y):
    return (x @ y).tanh()


def matrix_fn(x, y):
    return x.exp() * y


def pair_fn(x, y):
    return (x * y).sum(0), (x**2).sum() * y[0]


FUNCTIONS = [scalar_fn, vector_fn, matrix_fn, pair_fn]


def structure(result):
    """Nested tuples of tensors as nested tuples of [shape, values in NumPy]."""
    if isinstance(result, tuple):
        return tuple(structure(r) for r in result)
    return [tuple(result.shape), np.asarray(result.detach().tolist())]


def assert_same(ours, theirs):
    assert isinstance(ours, tuple) == isinstance(theirs, tuple)
    if isinstance(ours, tuple):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_same(a, b)
        return
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-12)


def both(torch, compute):
    """`compute(lib)` on dyngrad and on torch, compared in structure, shapes and values."""
    ours, theirs = compute(dyngrad), compute(torch)
    assert_same(structure(ours), structure(theirs))
    return ours


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_jacobian_matches_torch_for_tuple_inputs(torch, fn):
    both(torch, lambda lib: lib.autograd.functional.jacobian(fn, inputs(lib)))


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_jacobian_of_a_single_input_is_not_nested(torch, fn):
    def compute(lib):
        x, y = inputs(lib)
        return lib.autograd.functional.jacobian(lambda x: fn(x, y), x)

    jac = both(torch, compute)
    if fn is vector_fn:
        assert jac.shape == (2, 2, 3)  # out.shape + in.shape


@pytest.mark.parametrize("vectorize", [False, True])
def test_hessian_matches_torch(torch, vectorize):
    def compute(lib):
        hess = lib.autograd.functional.hessian
        x, y = inputs(lib)
        return hess(scalar_fn, (x, y), vectorize=vectorize), hess(lambda y: scalar_fn(x, y), y)

    (tuple_hessian, single) = both(torch, compute)
    assert tuple_hessian[0][1].shape == (2, 3, 3) and single.shape == (3, 3)


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_vjp_and_jvp_match_torch(torch, fn):
    def compute(lib):
        functional = lib.autograd.functional
        x, y = inputs(lib)
        out = fn(x, y)
        v = tuple(lib.ones_like(o) * 0.5 for o in out) if isinstance(out, tuple) else out * 0 + 1
        tangents = (lib.ones_like(x), lib.full_like(y, -2.0))
        return functional.vjp(fn, (x, y), v), functional.jvp(fn, (x, y), tangents)

    both(torch, compute)


def test_hvp_and_vhp_match_torch(torch):
    def compute(lib):
        functional = lib.autograd.functional
        x, y = inputs(lib)
        v = (lib.ones_like(x), lib.full_like(y, 0.5))
        return functional.hvp(scalar_fn, (x, y), v), functional.vhp(scalar_fn, (x, y), v)

    both(torch, compute)


def test_v_may_be_omitted_for_one_element(torch):
    def compute(lib):
        functional = lib.autograd.functional
        t = lib.tensor(0.7, dtype=lib.float64)
        cube = lambda x: x**3
        return (
            functional.vjp(cube, t),
            functional.jvp(cube, t),
            functional.hvp(cube, t),
            functional.vhp(cube, t),
        )

    both(torch, compute)


def test_unused_inputs_give_zeros(lib):
    functional = lib.autograd.functional
    x, y = inputs(lib)
    jac = functional.jacobian(lambda x, y: x.sum(1), (x, y))
    assert jac[1].shape == (2, 3) and not jac[1].any()
    _, (_, grad_y) = functional.vjp(lambda x, y: x.sum(), (x, y))
    assert not grad_y.any()
    hess = functional.hessian(lambda x, y: (x**3).sum(), (x, y))
    assert hess[1][1].shape == (3, 3) and not hess[1][1].any() and not hess[0][1].any()


def test_results_do_not_require_grad_by_default(lib):
    x, y = (t.requires_grad_() for t in inputs(lib))
    out, vjp = lib.autograd.functional.vjp(scalar_fn, (x, y))
    assert not out.requires_grad and not any(v.requires_grad for v in vjp)
    jac = lib.autograd.functional.jacobian(vector_fn, (x, y))
    assert not jac[0].requires_grad and jac[0].grad_fn is None


def test_create_graph_results_can_be_differentiated_again(torch):
    def compute(lib):
        x, y = (t.requires_grad_() for t in inputs(lib))
        functional = lib.autograd.functional
        jac = functional.jacobian(vector_fn, (x, y), create_graph=True)
        assert jac[1].requires_grad
        d_jac = lib.autograd.grad(jac[1].pow(2).sum(), (x, y))
        _, vjp = functional.vjp(scalar_fn, (x, y), create_graph=True)
        d_vjp = lib.autograd.grad(vjp[0].sum(), (x, y))
        _, hvp = functional.hvp(scalar_fn, (x, y), (x.detach(), y.detach()), create_graph=True)
        d_hvp = lib.autograd.grad(hvp[1].sum(), y)
        return d_jac, d_vjp, d_hvp

    both(torch, compute)


def test_jacobian_does_not_differentiate_captured_tensors(lib):
    x, y = inputs(lib)
    y.requires_grad_()
    jac = lib.autograd.functional.jacobian(lambda x: x * y, x)
    assert jac.shape == (2, 3, 2, 3) and not jac.requires_grad


# ---- errors --------------------------------------------------------------------------------


def test_strict_rejects_an_output_independent_of_an_input(lib):
    functional = lib.autograd.functional
    x, y = inputs(lib)
    with pytest.raises(RuntimeError) as info:
        functional.jacobian(lambda x, y: x * 2, (x, y), strict=True)
    assert first_line(info) == (
        "Output 0 of the user-provided function is independent of input 1. This is not "
        "allowed in strict mode."
    )
    with pytest.raises(RuntimeError) as info:
        functional.vjp(lambda x, y: x.sum(), (x, y), strict=True)
    assert first_line(info) == (
        "The output of the user-provided function is independent of input 1. This is not "
        "allowed in strict mode."
    )


def test_strict_rejects_an_output_that_does_not_require_grad(lib):
    x, _ = inputs(lib)
    with pytest.raises(RuntimeError) as info:
        lib.autograd.functional.jvp(lambda x: x.detach(), x, lib.ones_like(x), strict=True)
    assert first_line(info) == (
        "Output 0 of the user-provided function does not require gradients. The outputs must "
        "be computed in a differentiable manner from the input when running in strict mode."
    )


def test_strict_hessian_rejects_a_linear_function(lib):
    x, _ = inputs(lib)
    with pytest.raises(RuntimeError) as info:
        lib.autograd.functional.hessian(lambda x: (x * 3).sum(), x, strict=True)
    assert first_line(info).startswith(
        "While computing the hessian, found that the jacobian of the user-provided function "
        "with respect to input 0 is independent of the input."
    )


def test_strict_create_graph_rejects_a_constant_jacobian(lib):
    x, _ = inputs(lib)
    with pytest.raises(RuntimeError) as info:
        lib.autograd.functional.vjp(lambda x: x * 2, x, lib.ones_like(x), True, True)
    assert first_line(info) == (
        "The jacobian of the user-provided function is independent of input 0. This is not "
        "allowed in strict mode when create_graph=True."
    )


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda F, x: F.jacobian(lambda x: x, ([x],)),
            "The inputs given to jacobian must be either a Tensor or a tuple of Tensors but "
            "the value at index 0 has type <class 'list'>.",
        ),
        (
            lambda F, x: F.vjp(lambda x: x, [x]),
            "The inputs given to vjp must be either a Tensor or a tuple of Tensors but the "
            "given inputs has type <class 'list'>.",
        ),
        (
            lambda F, x: F.jvp(lambda x: 3.0, x, x),
            "The outputs of the user-provided function given to jvp must be either a Tensor or "
            "a tuple of Tensors but the given outputs of the user-provided function has type "
            "<class 'float'>.",
        ),
        (
            lambda F, x: F.hvp(lambda x: x.sum(), x, (x, 1.0)),
            "The v given to hvp must be either a Tensor or a tuple of Tensors but the value at "
            "index 1 has type <class 'float'>.",
        ),
    ],
)
def test_inputs_must_be_tensors(lib, call, message):
    x, _ = inputs(lib)
    with pytest.raises(TypeError) as info:
        call(lib.autograd.functional, x)
    assert first_line(info) == message


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda F, x: F.vjp(lambda x: x * 2, x),
            "The vector v can only be None if the user-provided function returns a single "
            "Tensor with a single element.",
        ),
        (
            lambda F, x: F.jvp(lambda x: x * 2, x),
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element.",
        ),
        (
            lambda F, x: F.vjp(lambda x: x * 2, x, x[0]),
            "v has invalid size: should be torch.Size([2, 3]) but got torch.Size([3]).",
        ),
        (
            lambda F, x: F.jvp(lambda x, y: x * y, (x, x), (x, x[0])),
            "Entry 1 in v has invalid size: should be torch.Size([2, 3]) but got torch.Size([3]).",
        ),
        (
            lambda F, x: F.jvp(lambda x, y: x * y, (x, x), (x,)),
            "v is a tuple of invalid length: should be 2 but got 1.",
        ),
        (
            lambda F, x: F.vjp(lambda x: x * 2, x, (x, x)),
            "The given v should contain a single Tensor.",
        ),
        (
            lambda F, x: F.hvp(lambda x: x * 2, x, x),
            "The Tensor returned by the function given to hvp should contain a single element",
        ),
        (
            lambda F, x: F.vhp(lambda x: (x.sum(), x.sum()), x, x),
            "The function given to vhp should return a single Tensor",
        ),
        (
            lambda F, x: F.hessian(lambda x: x, x),
            "The Tensor returned by the function given to hessian should contain a single element",
        ),
    ],
)
def test_invalid_v_and_outputs_raise_torchs_messages(lib, call, message):
    x, _ = inputs(lib)
    with pytest.raises(RuntimeError) as info:
        call(lib.autograd.functional, x)
    assert first_line(info) == message


def test_strict_and_vectorize_are_exclusive(lib):
    x, _ = inputs(lib)
    with pytest.raises(RuntimeError) as info:
        lib.autograd.functional.jacobian(lambda x: x * x, x, strict=True, vectorize=True)
    assert first_line(info).startswith(
        "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
        "supported together."
    )


def test_vectorize_gives_the_same_jacobian():
    x, y = inputs(dyngrad)
    rows = dyngrad.autograd.functional.jacobian(pair_fn, (x, y))
    vectorized = dyngrad.autograd.functional.jacobian(pair_fn, (x, y), vectorize=True)
    assert_same(structure(rows), structure(vectorized))


def test_strategy_must_be_known(lib):
    x, _ = inputs(lib)
    with pytest.raises(AssertionError) as info:
        lib.autograd.functional.jacobian(lambda x: x, x, strategy="sideways")
    assert first_line(info).startswith('Expected strategy to be either "forward-mode" or')


@pytest.mark.parametrize(
    "options, start",
    [
        ({"create_graph": True}, "torch.autograd.functional.jacobian: `create_graph=True` and"),
        ({"strict": True}, "torch.autograd.functional.jacobian: `strict=True` and"),
        ({}, "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"),
    ],
)
def test_forward_mode_errors_match_torch(lib, options, start):
    x, _ = inputs(lib)
    with pytest.raises((NotImplementedError, RuntimeError)) as info:
        lib.autograd.functional.jacobian(lambda x: x, x, strategy="forward-mode", **options)
    assert first_line(info).startswith(start)


def test_forward_mode_jacobian_matches_reverse_mode(lib):
    x = lib.tensor([[0.3, 0.5], [1.0, -2.0]], dtype=lib.float64)
    y = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)

    def pair(a, b):
        return (a.sin() * 2).sum() * b, a @ a

    forward = lib.autograd.functional.jacobian(
        pair, (x, y), vectorize=True, strategy="forward-mode"
    )
    reverse = lib.autograd.functional.jacobian(pair, (x, y))
    for rows_f, rows_r in zip(forward, reverse):
        for f, r in zip(rows_f, rows_r):
            assert f.shape == r.shape
            np.testing.assert_allclose(f.numpy(), r.numpy(), rtol=1e-12, atol=1e-15)
