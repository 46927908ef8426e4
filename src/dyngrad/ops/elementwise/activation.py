"""Activation functions as table ops; `nn.functional` re-exports them with these signatures.

PyTorch publishes only `selu`, `celu`, `threshold` (and their `_` forms) as `torch.*`; the rest
live in `torch.nn.functional`, so here they are plain functions of this module.
"""

from __future__ import annotations

from ...runtime import dtypes
from ..shape.joining import cat
from ..table.argument_errors import type_name
from ..table.errors import floating_only
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .arithmetic import _sigmoid, threshold_backward
from .compare import where
from .gelu import gelu, gelu_  # noqa: F401 - nn.functional takes its activations from here

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
# PyTorch's hardsigmoid backward multiplies by 1/6 rounded to float32, in every dtype
_SIXTH_AS_FLOAT32 = 0.1666666716337204


# ---- forwards on arrays ---------------------------------------------------------------------


@floating_only("leaky_relu_cpu")
def _leaky_relu(xp, x, *, negative_slope):
    return xp.where(x > 0, x, x * negative_slope).astype(x.dtype, copy=False)


@floating_only("elu_cpu")
def _elu(xp, x, *, alpha, scale, input_scale):
    # expm1 of min(x, 0): the positive side never overflows in the branch it discards
    negative = xp.expm1(xp.minimum(x, 0) * input_scale) * (alpha * scale)
    return xp.where(x > 0, x * scale, negative).astype(x.dtype, copy=False)


@floating_only("silu_cpu")
def _silu(xp, x):
    return x * _sigmoid(xp, x)


def _stable_softplus(xp, x):
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|): never overflows, exact for large |x|
    return xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))


@floating_only("mish_cpu")
def _mish(xp, x):
    return x * xp.tanh(_stable_softplus(xp, x))


@floating_only("softplus_cpu")
def _softplus(xp, x, *, beta, threshold):
    bx = x * beta
    return xp.where(bx > threshold, x, _stable_softplus(xp, bx) / beta).astype(x.dtype, copy=False)


def _hardtanh(xp, x, *, min_val, max_val):
    if x.dtype == bool:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    return xp.clip(x, min_val, max_val).astype(x.dtype, copy=False)


@floating_only("hardsigmoid_cpu")
def _hardsigmoid(xp, x):
    return xp.clip(x / 6 + 0.5, 0, 1).astype(x.dtype, copy=False)


@floating_only("hardswish_cpu")
def _hardswish(xp, x):
    return x * xp.clip(x + 3, 0, 6) / 6


@floating_only("log_sigmoid_cpu")
def _logsigmoid(xp, x):
    return xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))


def _threshold(xp, x, *, threshold, value):
    if x.dtype == bool:
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    # x <= threshold, not !(x > threshold): a NaN threshold keeps x, as PyTorch's kernel does
    return xp.where(x <= threshold, value, x).astype(x.dtype, copy=False)


# ---- backward formulas ----------------------------------------------------------------------


def _elu_grad(g, x, alpha, scale, input_scale):
    # PyTorch takes the exponential branch at x == 0: slope alpha * scale * input_scale
    negative = g * ((x.clamp_max(0) * input_scale).exp() * (alpha * scale * input_scale))
    return where(x > 0, g * scale, negative)


def _elu_result_grad(g, out, alpha, scale, input_scale):
    # from the result y: d/dx = input_scale * (y + alpha * scale) on the negative side
    if alpha < 0:
        raise RuntimeError(
            "In-place elu backward calculation is triggered with a negative slope which is not "
            "supported. This is caused by calling in-place forward function with a negative "
            "slope, please call out-of-place version instead."
        )
    return where(out > 0, g * scale, g * ((out + alpha * scale) * input_scale))


def _leaky_result_grad(g, out, negative_slope):
    if negative_slope < 0:
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which is "
            "not supported. This is caused by calling in-place forward function with a negative "
            "slope, please call out-of-place version instead. File an issue at "
            "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
            "backward calculation with negative slope"
        )
    return where(out > 0, g, g * negative_slope)


def _mish_grad(g, x):
    # d/dx [x tanh(sp(x))] = t + x sigmoid(x) (1 - t^2),  t = tanh(softplus(x))
    t = softplus(x).tanh()
    return g * (t + x * x.sigmoid() * (1 - t * t))


def _hardswish_grad(g, x):
    # PyTorch: 0 up to and including -3, x/3 + 1/2 inside, 1 from 3 on
    return where(x <= -3, 0.0, where(x < 3, g * (x / 3 + 0.5), g))


def _glu(xp, x, *, dim):
    a, b = xp.split(x, 2, axis=dim)
    return a * _sigmoid(xp, b)


def _glu_grad(g, x, dim):
    # d/da = sigmoid(b), d/db = a * sigmoid(b) * (1 - sigmoid(b)), side by side along dim
    a, b = x.chunk(2, dim)
    s = b.sigmoid()
    return cat([g * s, g * (a * (s * (1 - s)))], dim)


# ---- the table ------------------------------------------------------------------------------

LEAKY_RELU = defop(
    "leaky_relu",
    _leaky_relu,
    {"x": lambda g, x, negative_slope: where(x > 0, g, g * negative_slope)},
)
LEAKY_RELU_RESULT = defop(
    "leaky_relu_result", _leaky_relu, {"x": _leaky_result_grad}, node="LeakyReluBackward1"
)
ELU = defop("elu", _elu, {"x": _elu_grad})
ELU_RESULT = defop("elu_result", _elu, {"x": _elu_result_grad}, node="EluBackward1")
CELU = defop("celu", _elu, {"x": _elu_grad})
CELU_RESULT = defop("celu_result", _elu, {"x": _elu_result_grad}, node="CeluBackward1")
SILU = defop("silu", _silu, {"x": lambda g, x: g * (x.sigmoid() * (1 + x * (1 - x.sigmoid())))})
MISH = defop("mish", _mish, {"x": _mish_grad})
SOFTPLUS = defop(
    "softplus",
    _softplus,
    {"x": lambda g, x, beta, threshold: where(x * beta > threshold, g, g * (x * beta).sigmoid())},
)
# the gradient passes strictly inside (min_val, max_val): 0 on both kinks, as PyTorch
HARDTANH = defop(
    "hardtanh",
    _hardtanh,
    {"x": lambda g, out, min_val, max_val: g * (out > min_val).logical_and(out < max_val)},
)
HARDSIGMOID = defop(
    "hardsigmoid",
    _hardsigmoid,
    {"x": lambda g, x: g * (x > -3).logical_and(x < 3) * _SIXTH_AS_FLOAT32},
)
HARDSWISH = defop("hardswish", _hardswish, {"x": _hardswish_grad})
GLU = defop("glu", _glu, {"x": _glu_grad})
LOGSIGMOID = defop(
    "logsigmoid", _logsigmoid, {"x": lambda g, x: g * (-x).sigmoid()}, node="LogSigmoidBackward0"
)
THRESHOLD = defop(
    "threshold", _threshold, {"x": lambda g, x, threshold: threshold_backward(g, x, threshold)}
)
# in-place threshold_ keeps the input it overwrote and differentiates as threshold does
THRESHOLD_INPLACE = defop(
    "threshold_inplace",
    _threshold,
    {"x": lambda g, x, threshold: threshold_backward(g, x, threshold)},
    node="ThresholdBackward1",
)


def _run(op, op_inplace, input, inplace, attrs, name):
    if inplace:
        return apply_inplace(op_inplace, (input,), attrs, name=name)
    return apply(op, (input,), attrs)


# ---- the public functions (nn.functional signatures) ---------------------------------------


def relu6(input, inplace=False):
    """Matches `torch.nn.functional.relu6`: hardtanh(input, 0, 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """Matches `torch.nn.functional.leaky_relu`."""
    if not isinstance(negative_slope, (int, float)):
        raise TypeError(
            f"leaky_relu(): argument 'negative_slope' (position 2) must be Number, "
            f"not {type_name(negative_slope)}"
        )
    attrs = {"negative_slope": negative_slope}
    return _run(LEAKY_RELU, LEAKY_RELU_RESULT, input, inplace, attrs, "leaky_relu_")


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, True)


def elu(input, alpha=1.0, inplace=False):
    """Matches `torch.nn.functional.elu`."""
    attrs = {"alpha": alpha, "scale": 1.0, "input_scale": 1.0}
    return _run(ELU, ELU_RESULT, input, inplace, attrs, "elu_")


def elu_(input, alpha=1.0):
    return elu(input, alpha, True)


@public(method=False)
def selu(input, inplace=False):
    """Matches `torch.selu`: scale * elu(input, alpha) with the self-normalising constants."""
    attrs = {"alpha": _SELU_ALPHA, "scale": _SELU_SCALE, "input_scale": 1.0}
    return _run(ELU, ELU_RESULT, input, inplace, attrs, "selu_")


@public(method=False)
def selu_(input):
    return selu(input, True)


@public(method=False)
def celu(input, alpha=1.0, inplace=False):
    """Matches `torch.celu`: elu with the input scaled by 1/alpha."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    attrs = {"alpha": alpha, "scale": 1.0, "input_scale": 1.0 / alpha}
    return _run(CELU, CELU_RESULT, input, inplace, attrs, "celu_")


@public(method=False)
def celu_(input, alpha=1.0):
    return celu(input, alpha, True)


def silu(input, inplace=False):
    """Matches `torch.nn.functional.silu`: x * sigmoid(x)."""
    return _run(SILU, SILU, input, inplace, {}, "silu_")


def mish(input, inplace=False):
    """Matches `torch.nn.functional.mish`: x * tanh(softplus(x))."""
    return _run(MISH, MISH, input, inplace, {}, "mish_")


def softplus(input, beta=1.0, threshold=20.0):
    """Matches `torch.nn.functional.softplus`: log(1 + e^(beta x)) / beta, linear past threshold."""
    return apply(SOFTPLUS, (input,), {"beta": beta, "threshold": threshold})


def softsign(input):
    """Matches `torch.nn.functional.softsign`: x / (1 + |x|) (composite, DivBackward0)."""
    return input / (input.abs() + 1)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Matches `torch.nn.functional.hardtanh`."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input.dtype is dtypes.uint8 and min(min_val, max_val) < 0:
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    attrs = {"min_val": min_val, "max_val": max_val}
    return _run(HARDTANH, HARDTANH, input, inplace, attrs, "hardtanh_")


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, True)


def hardsigmoid(input, inplace=False):
    """Matches `torch.nn.functional.hardsigmoid`: relu6(x + 3) / 6."""
    return _run(HARDSIGMOID, HARDSIGMOID, input, inplace, {}, "hardsigmoid_")


def hardswish(input, inplace=False):
    """Matches `torch.nn.functional.hardswish`: x * relu6(x + 3) / 6."""
    return _run(HARDSWISH, HARDSWISH, input, inplace, {}, "hardswish_")


def logsigmoid(input):
    """Matches `torch.nn.functional.logsigmoid`: -softplus(-x), computed without overflow."""
    return apply(LOGSIGMOID, (input,))


def tanhshrink(input):
    """Matches `torch.nn.functional.tanhshrink`: x - tanh(x) (composite, SubBackward0)."""
    return input - input.tanh()


def _thresholded(input, threshold, value, inplace):
    attrs = {"threshold": threshold, "value": value}
    return _run(THRESHOLD, THRESHOLD_INPLACE, input, inplace, attrs, "threshold_")


@public(method=False)
def threshold(input, threshold, value, inplace=False):
    """Matches `torch.threshold`: input where input > threshold, else value."""
    return _thresholded(input, threshold, value, inplace)


@public(method=False)
def threshold_(input, threshold, value):
    return _thresholded(input, threshold, value, True)
