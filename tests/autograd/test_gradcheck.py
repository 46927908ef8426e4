"""gradcheck and gradgradcheck: right and deliberately wrong Functions, messages, warnings.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import importlib
import re
import warnings

import pytest

import dyngrad


def functions(lib):
    """A correct square, one with a wrong first derivative, one with a wrong second."""

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x

    class WrongFirst(Square):
        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x  # should be 2 x

    class WrongSecond(Square):
        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x.detach()  # right value, but its own gradient is lost

    return Square, WrongFirst, WrongSecond


def doubles(lib, *values):
    return lib.tensor(list(values), dtype=lib.float64, requires_grad=True)


def test_gradcheck_passes_a_correct_function(lib):
    square, _, _ = functions(lib)
    assert lib.autograd.gradcheck(square.apply, (doubles(lib, 1.0, 2.0),))
    assert lib.autograd.gradgradcheck(square.apply, (doubles(lib, 1.0, 2.0),))


def test_gradcheck_reports_a_wrong_jacobian(lib):
    _, wrong, _ = functions(lib)
    with pytest.raises(RuntimeError) as info:
        lib.autograd.gradcheck(wrong.apply, (doubles(lib, 1.0, 2.0),))
    assert type(info.value).__name__ == "GradcheckError"
    assert str(info.value) == (
        "Jacobian mismatch for output 0 with respect to input 0,\n"
        "numerical:tensor([[2.0000, 0.0000],\n        [0.0000, 4.0000]], dtype=torch.float64)\n"
        "analytical:tensor([[1., 0.],\n        [0., 2.]], dtype=torch.float64)\n"
    )


def test_gradcheck_without_raising_returns_false(lib):
    _, wrong, _ = functions(lib)
    assert (
        lib.autograd.gradcheck(wrong.apply, (doubles(lib, 1.0, 2.0),), raise_exception=False)
        is False
    )


def test_gradgradcheck_catches_a_wrong_second_derivative(lib):
    _, _, wrong_second = functions(lib)
    x = doubles(lib, 1.0, 2.0)
    assert lib.autograd.gradcheck(wrong_second.apply, (x,))
    with pytest.raises(
        RuntimeError, match=re.escape("Jacobian mismatch for output 0 with respect to input 0,")
    ):
        lib.autograd.gradgradcheck(wrong_second.apply, (x,))
    assert lib.autograd.gradgradcheck(wrong_second.apply, (x,), raise_exception=False) is False


def test_jacobian_is_laid_out_inputs_by_outputs(lib):
    class Pick(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:2] * 3

        @staticmethod
        def backward(ctx, g):
            return lib.cat([g, g.sum(0, keepdim=True)])

    with pytest.raises(RuntimeError) as info:
        lib.autograd.gradcheck(Pick.apply, (doubles(lib, 1.0, 2.0, 3.0),))
    assert str(info.value) == (
        "Jacobian mismatch for output 0 with respect to input 0,\n"
        "numerical:tensor([[3.0000, 0.0000],\n        [0.0000, 3.0000],\n        [0.0000, 0.0000]], "
        "dtype=torch.float64)\n"
        "analytical:tensor([[1., 0.],\n        [0., 1.],\n        [1., 1.]], dtype=torch.float64)\n"
    )


def test_mismatch_names_the_output_and_input(lib):
    _, wrong, _ = functions(lib)
    with pytest.raises(
        RuntimeError, match="^Jacobian mismatch for output 1 with respect to input 1,"
    ):
        lib.autograd.gradcheck(
            lambda a, b: (a * 2, wrong.apply(b)), (doubles(lib, 1.0), doubles(lib, 2.0))
        )


def test_gradcheck_accepts_several_inputs_and_outputs(lib):
    a, b = doubles(lib, 1.0, 2.0), doubles(lib, 3.0, 4.0)
    assert lib.autograd.gradcheck(lambda x, y: (x * y, x + y, (x / y).exp()), (a, b))
    assert lib.autograd.gradcheck(lambda x, k: x * k, (a, 3.0))
    assert lib.autograd.gradcheck(lambda x, c: x * c, (a, lib.ones(2, dtype=lib.float64)))
    assert lib.autograd.gradcheck(lambda x: x.sum(), a)  # a bare tensor is one input
    assert lib.autograd.gradgradcheck(lambda x, y: (x * y).tanh(), (a, b))


def test_gradcheck_needs_an_input_that_requires_grad(lib):
    with pytest.raises(ValueError) as info:
        lib.autograd.gradcheck(lambda t: t * 2, (lib.ones(2, dtype=lib.float64),))
    assert str(info.value) == (
        "gradcheck expects at least one input tensor to require gradient, "
        "but none of them have requires_grad=True."
    )


@pytest.mark.parametrize("fast_mode", [False, True])
def test_output_without_grad_must_not_depend_on_the_input(lib, fast_mode):
    x = doubles(lib, 1.0, 2.0)

    def check(fn, **kwargs):
        return lib.autograd.gradcheck(fn, (x,), fast_mode=fast_mode, **kwargs)

    with pytest.raises(RuntimeError, match="^Numerical gradient for function expected to be zero$"):
        check(lambda t: t.detach() * 3)
    assert check(lambda t: t.detach() * 3, raise_exception=False) is False
    assert check(lambda t: t.detach() * 0)
    assert check(lambda t: (t.detach() * 0, t.argmax()))
    assert check(lambda t: (t * 2, t.detach() * 3))


def test_fast_mode_allows_constant_outputs_to_move_within_nondet_tol(lib):
    # PyTorch's fast mode bounds the directional derivative by nondet_tol; slow mode wants zeros
    x = doubles(lib, 1.0, 2.0)
    assert lib.autograd.gradcheck(
        lambda t: t.detach() * 1e-9, (x,), fast_mode=True, nondet_tol=1e-6
    )
    with pytest.raises(RuntimeError, match="^Numerical gradient for function expected to be zero$"):
        lib.autograd.gradcheck(lambda t: t.detach() * 1e-9, (x,), nondet_tol=1e-6)


def test_single_precision_inputs_warn(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning) as record:
        lib.autograd.gradcheck(lambda t: t * 2, (x,), raise_exception=False)
    assert str(record[0].message) == (
        "Input #0 requires gradient and is not a double precision floating point or complex. "
        "This check will likely fail if all the inputs are not of double precision floating "
        "point or complex. "
    )


def test_single_precision_mismatch_shows_the_float32_differences():
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    _, _, wrong_second = functions(dyngrad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError) as info:
            dyngrad.autograd.gradcheck(
                lambda t: wrong_second.apply(t) * 1, (x,), eps=1e-3, atol=1e-9, rtol=1e-9
            )
    # numerical in float32 (the output's dtype), analytical in the input's
    lines = str(info.value).split("\n")
    assert lines[1].startswith("numerical:tensor([[") and "dtype" not in lines[2]


def test_gradcheck_restores_the_inputs(lib):
    x = doubles(lib, 1.0, 2.0)
    lib.autograd.gradcheck(lambda t: t.exp(), (x,))
    assert x.tolist() == [1.0, 2.0]


def test_gradcheck_error_is_exported():
    from dyngrad.autograd.gradcheck import GradcheckError

    assert issubclass(GradcheckError, RuntimeError)


def _non_deterministic(lib):
    class NonDet(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, jitter=0.0):
            ctx.jitter = jitter
            return x

        @staticmethod
        def backward(ctx, g):
            return NonDet.apply(g, ctx.jitter) * (1 + lib.rand_like(g) * ctx.jitter), None

    return NonDet


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_detects_a_non_deterministic_backward(lib, fast_mode):
    nondet = _non_deterministic(lib)
    x = lib.randn(3, 3, dtype=lib.float64, requires_grad=True)

    def check(fn, **kwargs):
        return lib.autograd.gradcheck(fn, x, fast_mode=fast_mode, **kwargs)

    def check_twice(fn, **kwargs):
        return lib.autograd.gradgradcheck(fn, x, fast_mode=fast_mode, **kwargs)

    assert check(lambda t: nondet.apply(t, 0.0))
    with pytest.raises(RuntimeError, match="Backward is not reentrant, i.e., running backward"):
        check(lambda t: nondet.apply(t, 1e-6))
    assert check(lambda t: nondet.apply(t, 1e-6), raise_exception=False) is False
    with pytest.raises(RuntimeError, match="The tolerance for nondeterminism was 0.0"):
        check_twice(lambda t: nondet.apply(t, 1e-12))
    assert check(lambda t: nondet.apply(t, 1e-6), nondet_tol=1e-5)
    assert check_twice(lambda t: nondet.apply(t, 1e-12), nondet_tol=1e-5)


def test_non_reentrant_message_names_the_tolerance(lib):
    nondet = _non_deterministic(lib)
    x = lib.randn(2, dtype=lib.float64, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        lib.autograd.gradcheck(lambda t: nondet.apply(t, 1e-3), x, nondet_tol=1e-9)
    assert type(info.value).__name__ == "GradcheckError"
    assert "The tolerance for nondeterminism was 1e-09." in str(info.value)
    assert "with `nondet_tol=<tol>` as a keyword argument" in str(info.value)


@pytest.mark.parametrize(
    ("make", "what", "slow_detail", "fast_detail"),
    [
        (
            lambda lib, x: lib.cat([x, x]),
            "shape",
            "on index (0,) by 1e-06, but got: shapes torch.Size([1]) and torch.Size([2]).",
            "by 1e-06, but got: shapes torch.Size([1]) and torch.Size([2]).",
        ),
        (
            lambda lib, x: x.to(lib.float32),
            "dtype",
            "on index (0,) by 1e-06, but got: dtypes torch.float64 and torch.float32.",
            "by 1e-06, but got: dtypes torch.float64 and torch.float32.",
        ),
    ],
)
@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_refuses_outputs_whose_shape_depends_on_values(
    lib, make, what, slow_detail, fast_detail, fast_mode
):
    def fn(x):
        return make(lib, x) if bool((x >= 1).all()) else x

    detail = fast_detail if fast_mode else slow_detail
    message = f"Expected `func` to return outputs with the same {what} when inputs are perturbed "
    with pytest.raises(AssertionError, match=re.escape(message + detail)):
        lib.autograd.gradcheck(fn, (doubles(lib, 1.0),), fast_mode=fast_mode)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            {"check_backward_ad": False},
            "Expected at least one of check_forward_ad or check_backward_ad to be True",
        ),
        (
            {"check_backward_ad": False, "check_forward_ad": True, "check_batched_grad": True},
            "Setting check_batched_grad=True requires check_backward_ad to be True",
        ),
        (
            {"check_batched_forward_grad": True},
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True",
        ),
    ],
)
def test_gradcheck_refuses_contradictory_modes(lib, flags, message):
    x = doubles(lib, 1.0, 2.0)
    with pytest.raises(AssertionError, match=re.escape(message)):
        lib.autograd.gradcheck(lambda t: t * 2, (x,), raise_exception=False, **flags)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            {"check_rev_over_rev": False},
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True",
        ),
        (
            {"check_rev_over_rev": False, "check_fwd_over_rev": True},
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True",
        ),
        (
            {
                "check_rev_over_rev": False,
                "check_fwd_over_rev": True,
                "check_undefined_grad": False,
                "check_batched_grad": True,
            },
            "Setting check_batched_grad=True requires check_rev_over_rev to be True",
        ),
    ],
)
def test_gradgradcheck_refuses_contradictory_modes(lib, flags, message):
    x = doubles(lib, 1.0, 2.0)
    with pytest.raises(AssertionError, match=re.escape(message)):
        lib.autograd.gradgradcheck(lambda t: t * t, (x,), **flags)


def test_forward_ad_checks_run_and_catch_a_wrong_jvp(lib):
    x = doubles(lib, 1.0, 2.0)
    assert lib.autograd.gradcheck(lambda t: t.sin() * 2, (x,), check_forward_ad=True)
    assert lib.autograd.gradgradcheck(lambda t: (t * t).sin(), (x,), check_fwd_over_rev=True)

    class WrongJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 3

        @staticmethod
        def backward(ctx, g):
            return g * 3

        @staticmethod
        def jvp(ctx, t):
            return t * 2

    with pytest.raises(Exception, match="Jacobian computed with forward mode mismatch"):
        lib.autograd.gradcheck(WrongJvp.apply, (x,), check_forward_ad=True)


def test_gradcheck_refuses_sparse_outputs(lib):
    x = doubles(lib, 1.0, 0.0, 3.0)
    with pytest.raises(ValueError, match="Sparse output is not supported at gradcheck yet."):
        lib.autograd.gradcheck(lambda t: t.to_sparse(), (x,))


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradgradcheck_with_non_contiguous_output_gradients(lib, fast_mode):
    x = lib.randn(2, 3, dtype=lib.float64, requires_grad=True)
    assert lib.autograd.gradgradcheck(
        lambda t: t.tanh() * t, (x,), gen_non_contig_grad_outputs=True, fast_mode=fast_mode
    )
    _, _, wrong_second = functions(lib)
    with pytest.raises(RuntimeError, match="Jacobian mismatch for output 0 with respect to"):
        lib.autograd.gradgradcheck(
            wrong_second.apply, (x,), gen_non_contig_grad_outputs=True, fast_mode=fast_mode
        )


def test_gradcheck_checks_undefined_output_gradients(lib):
    class NeedsGrad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            if g is None:
                raise RuntimeError("no gradient")
            return g

    x = doubles(lib, 1.0)
    with pytest.warns(UserWarning, match="Backwards compatibility: New undefined gradient"):
        with pytest.raises(RuntimeError, match="Expected backward function to handle undefined"):
            lib.autograd.gradcheck(NeedsGrad.apply, (x,))
    with pytest.warns(UserWarning, match="Backwards compatibility"):
        assert lib.autograd.gradcheck(NeedsGrad.apply, (x,), raise_exception=False) is False
    assert lib.autograd.gradcheck(NeedsGrad.apply, (x,), check_undefined_grad=False)


def test_gradcheck_without_raising_lets_other_errors_through(lib):
    def broken(x):
        raise RuntimeError("Not a GradcheckError!")

    with pytest.raises(RuntimeError, match="Not a GradcheckError!"):
        lib.autograd.gradcheck(broken, (doubles(lib, 1.0),), raise_exception=False)


def test_deprecated_numerical_jacobian(lib):
    # the module: torch.autograd.gradcheck is the function
    module = importlib.import_module(f"{lib.__name__}.autograd.gradcheck")
    a = lib.rand(2, 2, dtype=lib.float64, requires_grad=True)
    b = lib.rand(2, 2, dtype=lib.float64, requires_grad=True)

    def fn(inputs):
        return 2 * inputs[0] + inputs[1], inputs[0] + 2 * inputs[1]

    with pytest.warns(FutureWarning, match="`get_numerical_jacobian` was part of PyTorch's"):
        (only,) = module.get_numerical_jacobian(fn, (a, b), target=a, eps=1e-6)
    assert lib.allclose(only, 2 * lib.eye(4, dtype=lib.float64))
    with pytest.warns(FutureWarning):
        first, second = module.get_numerical_jacobian(fn, (a, b), eps=1e-6)
    assert lib.allclose(second, lib.eye(4, dtype=lib.float64))
    with pytest.warns(FutureWarning), pytest.raises(ValueError, match="Expected grad_out to be 1"):
        module.get_numerical_jacobian(fn, (a, b), grad_out=2.0)


def test_deprecated_analytical_jacobian(lib):
    module = importlib.import_module(f"{lib.__name__}.autograd.gradcheck")
    a = lib.rand(2, 2, dtype=lib.float64, requires_grad=True)
    b = lib.rand(2, 2, dtype=lib.float64, requires_grad=True)
    with pytest.warns(FutureWarning, match="`get_analytical_jacobian` was part of PyTorch's"):
        jacobians, reentrant, _, _ = module.get_analytical_jacobian((a, b), 2 * a + b)
    assert lib.equal(jacobians[0], 2 * lib.eye(4, dtype=lib.float64)) and reentrant
    out = _non_deterministic(lib).apply(a, 1e-6)
    with pytest.warns(FutureWarning):
        assert module.get_analytical_jacobian((a,), out)[1] is False


def _counting_double():
    calls = []

    class Double(dyngrad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            calls.append(1)
            return g * 2

    return Double, calls


def test_fast_mode_compares_one_product_per_output():
    double, calls = _counting_double()
    x = dyngrad.randn(4, 5, dtype=dyngrad.float64, requires_grad=True)
    assert dyngrad.autograd.gradcheck(
        double.apply, (x,), fast_mode=True, check_undefined_grad=False
    )
    fast = len(calls)
    calls.clear()
    assert dyngrad.autograd.gradcheck(double.apply, (x,), check_undefined_grad=False)
    assert fast < 5 < len(calls)  # slow mode runs one backward per output element (twice)


def test_fast_mode_catches_a_wrong_backward(lib):
    class Wrong(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = lib.randn(3, dtype=lib.float64, requires_grad=True)
    with pytest.raises(
        RuntimeError, match="Jacobian mismatch for output 0 with respect to input 0"
    ):
        lib.autograd.gradcheck(Wrong.apply, (x,), fast_mode=True)
    assert lib.autograd.gradgradcheck(lambda a: a.tanh() * a, (x,), fast_mode=True)


def complex_scalings(lib):
    """z * (1 + 1j) with the conjugate Wirtinger backward PyTorch uses, and without the
    conjugate (the mistake a real-valued formula makes on complex numbers)."""

    class Right(lib.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            return z * (1 + 1j)

        @staticmethod
        def backward(ctx, g):
            return g * (1 - 1j)

    class Unconjugated(Right):
        @staticmethod
        def backward(ctx, g):
            return g * (1 + 1j)

    return Right, Unconjugated


def test_gradcheck_of_complex_functions_judges_as_torch(lib):
    right, unconjugated = complex_scalings(lib)
    z = lib.tensor([1 + 2j, -0.5j], dtype=lib.complex128, requires_grad=True)
    x = doubles(lib, 1.0, -2.0)
    assert lib.autograd.gradcheck(right.apply, (z,))
    assert lib.autograd.gradgradcheck(lambda z: right.apply(z) * z, (z,))
    assert lib.autograd.gradcheck(lambda x: right.apply(x.to(lib.complex128)).abs(), (x,))
    assert not lib.autograd.gradcheck(unconjugated.apply, (z,), raise_exception=False)
    # a real input, a complex output: its imaginary part is checked too
    assert not lib.autograd.gradcheck(
        lambda x: unconjugated.apply(x.to(lib.complex128)), (x,), raise_exception=False
    )
    assert z.tolist() == [1 + 2j, -0.5j] and z.grad is None
