"""Bad input to elementwise ops raises PyTorch's exception type and first sentence."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from .oracle import same


def _f(t):
    from dyngrad.ops.elementwise import activation

    return activation if t is dyngrad else t.nn.functional


BROADCAST = [
    ("a + b", (2, 3), (2, 4)),
    ("a + b", (3,), (4,)),
    ("a * b", (2, 3), (3, 2)),
    ("t.maximum(a, b)", (2, 3), (3, 2)),
    ("a // b", (5, 1, 3), (4, 2)),
    ("a % b", (3,), (4,)),
    ("t.atan2(a, b)", (3,), (2, 4)),
    ("a == b", (3,), (4,)),
    ("t.isclose(a, b)", (3,), (4,)),
    ("t.where(a > 0, a, b)", (3,), (4,)),
    ("t.where(b > 0, a, a)", (3,), (4,)),
    ("t.addcmul(a, b, a)", (3,), (4,)),
    ("t.addcmul(a, a, b)", (3,), (5,)),
    ("t.addcdiv(a, a, b)", (3,), (2, 4)),
    ("t.lerp(a, b, 0.5)", (3,), (4,)),
    ("t.lerp(a, a, b)", (3,), (4,)),
    ("t.clamp(a, b, a)", (3,), (4,)),
    ("t.logical_and(a, b)", (2, 3), (2, 4)),
    ("t.fmod(a, b)", (3, 1, 2), (3, 4)),
]


@pytest.mark.parametrize("expr,sa,sb", BROADCAST, ids=[f"{e}-{a}-{b}" for e, a, b in BROADCAST])
def test_shape_mismatch_names_the_first_clashing_dimension(torch, expr, sa, sb):
    """'The size of tensor a (3) must match the size of tensor b (4) at non-singleton ...'"""
    a, b = np.ones(sa), np.ones(sb)
    with pytest.raises(RuntimeError, match="The size of tensor a"):
        eval(expr, {"t": dyngrad}, {"a": dyngrad.from_numpy(a), "b": dyngrad.from_numpy(b)})
    same(torch, expr, a=a, b=b)


@pytest.mark.parametrize(
    "expr",
    [
        "a.add_(b)",
        "a.mul_(b)",
        "a.atan2_(b)",
        "a.clamp_(b)",
        "a.lerp_(b, 0.5)",
        "a.addcmul_(b, b)",
        "a.fmod_(b)",
        "a.floor_divide_(b)",
        "a.exp2_()",
        "a.copy_(b)",
    ],
)
def test_inplace_result_must_fit_self(torch, expr):
    same(torch, expr, a=np.ones(3), b=np.ones((2, 3)))


NOT_A_TENSOR = [
    "t.maximum(a, 1.0)",
    "t.minimum(a, 2)",
    "t.atan2(a, 2.0)",
    "a.atan2_(2.0)",
    "t.isclose(a, 1.0)",
    "t.equal(a, 1.0)",
    "t.logical_and(a, 1)",
    "t.logical_or(a, True)",
    "t.logical_xor(a, 1.5)",
    "t.lerp(a, 1.0, 0.5)",
    "t.isnan(1.0)",
    "t.exp2(2.0)",
    "t.erfinv(0.5)",
    "t.fmod(5, a)",
]


@pytest.mark.parametrize("expr", NOT_A_TENSOR)
def test_python_number_where_a_tensor_is_required(torch, expr):
    same(torch, expr, a=np.ones(3))


INVALID = [
    "t.div(a, 2, rounding_mode='round')",
    "a.div_(2, rounding_mode='ceil')",
    "f(t).gelu(a, approximate='fast')",
    "f(t).hardtanh(a, 2.0, 1.0)",
    "t.celu(a, 0.0)",
    "t.isclose(a, a, rtol=-1.5)",
    "t.isclose(a, a, atol=-2)",
    "t.isclose(a, i)",
    "t.allclose(a, a.float())",
    "t.addcdiv(a, i, i)",
    "a.addcdiv_(i, i)",
    "t.lerp(a, a.float(), 0.5)",
    "t.lerp(a, a, a.float())",
    "t.lerp(i, i, 0.5)",
    "t.lerp(i, i, i)",
    "t.clamp(a)",
    "a.clamp_()",
    "t.clamp(a, a, 1.0)",
    "i ** -1",
    "i.pow_(-2)",
    "i.round(decimals=1)",
    "i.frac()",
    "b.floor()",
    "b.abs()",
    "b.round()",
    "-b",
    "b - b",
    "a - b",
    "1 - b",
    "f(t).relu6(b)",
    "t.threshold(b, 0, 1)",
    "f(t).leaky_relu(i)",
    "f(t).elu(i)",
    "t.selu(i)",
    "f(t).gelu(i)",
    "f(t).silu(i)",
    "f(t).mish(i)",
    "f(t).softplus(i)",
    "f(t).hardsigmoid(i)",
    "f(t).hardswish(i)",
    "f(t).logsigmoid(i)",
    "a & a",
    "i | 1.5",
    "~a",
    "t.where(i, a, a)",
]


@pytest.mark.parametrize("expr", INVALID)
def test_invalid_arguments_raise_torch_errors(torch, expr):
    env = {
        "a": np.array([0.5, -1.0, 2.0]),
        "i": np.array([1, 2, 3]),
        "b": np.array([True, False, True]),
    }
    ours = _outcome(dyngrad, expr, env)
    theirs = _outcome(torch, expr, env)
    assert isinstance(theirs, Exception), f"torch accepted {expr}"
    assert type(ours).__name__ == type(theirs).__name__, (expr, ours, theirs)
    assert str(ours).splitlines()[0] == str(theirs).splitlines()[0], (expr, ours, theirs)


def _outcome(module, expr, env):
    values = {k: module.from_numpy(v.copy()) for k, v in env.items()}
    try:
        return eval(expr, {"t": module, "f": _f}, values)
    except Exception as exc:  # noqa: BLE001 - the exception is the result compared
        return exc


def test_errors_are_never_raw_numpy_tracebacks(torch):
    # NumPy's own messages mention ufuncs, casting rules or "operands could not be broadcast"
    for expr in INVALID + [e for e, _, _ in BROADCAST]:
        env = {
            "a": np.array([0.5, -1.0, 2.0]),
            "i": np.array([1, 2, 3]),
            "b": np.array([True, False, True, False]),
        }
        exc = _outcome(dyngrad, expr, env)
        if isinstance(exc, Exception):
            assert "ufunc" not in str(exc) and "operands could not" not in str(exc), expr


def test_in_place_random_fill_on_a_leaf_that_requires_grad(torch):
    same(torch, "t.zeros(3, requires_grad=True).normal_()")
    same(torch, "t.zeros(3, requires_grad=True).uniform_()")
    same(torch, "t.zeros(3, requires_grad=True).clamp_(0, 1)")


@pytest.mark.parametrize("name", ["exp", "log", "sin", "tanh", "sigmoid", "relu", "sqrt"])
def test_unary_op_on_a_number_raises_torch_type_error(name):
    with pytest.raises(TypeError) as info:
        getattr(dyngrad, name)(3.0)
    assert str(info.value) == (f"{name}(): argument 'input' (position 1) must be Tensor, not float")
