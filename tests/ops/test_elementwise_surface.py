"""The elementwise API exists exactly where PyTorch has it: `torch.X`, `Tensor.X`, `X_`."""

from __future__ import annotations

import pytest

import dyngrad
from dyngrad.ops.elementwise import activation

NAMES = """
add sub subtract rsub mul multiply div divide true_divide floor_divide remainder fmod pow neg
negative reciprocal abs absolute sign square addcmul addcdiv lerp exp exp2 expm1 log log2 log10
log1p sqrt rsqrt sin cos tan asin acos atan atan2 arcsin arccos arctan arctan2 sinh cosh tanh
asinh acosh atanh arcsinh arccosh arctanh erf erfc erfinv sigmoid relu selu celu threshold eq ne
lt le gt ge greater less greater_equal less_equal not_equal isclose allclose equal logical_and
logical_or logical_not logical_xor isnan isinf isfinite isposinf isneginf where maximum minimum
clamp clip clamp_min clamp_max floor ceil round trunc fix frac bernoulli multinomial normal_
uniform_ random_ exponential_ cauchy_ log_normal_ geometric_ bernoulli_ fill_ zero_ copy_
result_type promote_types can_cast
""".split()


@pytest.mark.parametrize("name", NAMES)
def test_function_method_and_inplace_exist_where_torch_has_them(torch, name):
    for suffix in ("", "_"):
        key = name + suffix
        assert hasattr(dyngrad, key) == hasattr(torch, key), f"torch.{key}"
        assert hasattr(dyngrad.Tensor, key) == hasattr(torch.Tensor, key), f"Tensor.{key}"


F_NAMES = """relu6 leaky_relu leaky_relu_ elu elu_ selu celu gelu silu mish softplus softsign
hardtanh hardtanh_ hardsigmoid hardswish logsigmoid tanhshrink threshold threshold_""".split()


# the C builtins among them carry no signature: their documented parameters
_BUILTIN_PARAMETERS = {
    "leaky_relu_": [("input", None), ("negative_slope", 0.01)],
    "elu_": [("input", None), ("alpha", 1.0)],
    "gelu": [("input", None), ("approximate", "none")],
    "softplus": [("input", None), ("beta", 1.0), ("threshold", 20.0)],
    "hardtanh_": [("input", None), ("min_val", -1.0), ("max_val", 1.0)],
    "logsigmoid": [("input", None)],
    "threshold_": [("input", None), ("threshold", None), ("value", None)],
}


def _parameters(fn, name):
    import inspect

    try:
        params = inspect.signature(fn).parameters.values()
    except ValueError:
        return _BUILTIN_PARAMETERS[name]
    return [(p.name, None if p.default is p.empty else p.default) for p in params]


@pytest.mark.parametrize("name", F_NAMES)
def test_activation_module_offers_the_functional_api(torch, name):
    """Same parameter names and defaults as `torch.nn.functional.<name>` (a prefix of ours)."""
    theirs = _parameters(getattr(torch.nn.functional, name), name)
    ours = _parameters(getattr(activation, name), name)
    assert ours[: len(theirs)] == theirs


@pytest.mark.parametrize(
    "name",
    [
        "gelu",
        "silu",
        "mish",
        "softplus",
        "hardsigmoid",
        "hardswish",
        "relu6",
        "leaky_relu",
        "elu",
        "hardtanh",
        "logsigmoid",
        "softsign",
        "tanhshrink",
    ],
)
def test_functional_only_activations_are_not_torch_functions(torch, name):
    assert not hasattr(torch, name) and not hasattr(dyngrad, name)
