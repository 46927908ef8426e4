"""Elementwise arithmetic (`+ - * / **`), exp/log/sqrt/sin/cos/tanh/sigmoid/relu, operators.

Comparisons, clamp and where live in `compare`; the other math families in `unary`,
`rounding`, `fused` and `activation`.

Each op is one `defop` row: forward on arrays, one backward formula per input.
"""

from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor
from ...runtime import dtypes
from ...runtime.exact_math import multiply_add
from ..table import promotion
from ..table.array_backward import FORMULAS, ArrayBackward
from ..table.fast import binary, unary
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import METHODS, public, public_unary
from .compare import (  # noqa: F401 - re-exported: other families import them from here
    clamp,
    clamp_max,
    clamp_min,
    clip,
    eq,
    ge,
    gt,
    le,
    logical_and,
    logical_not,
    logical_or,
    lt,
    maximum,
    minimum,
    ne,
    where,
)
from .complex_numbers import conjugate
from .rounding import divide_rounded, divide_rounded_

# ---- the table ------------------------------------------------------------------------------

ADD = defop(
    "add",
    lambda xp, x, y: x + y,
    {"x": lambda g: g, "y": lambda g: g},
    promote=promotion.binary,
    array_backward=FORMULAS,
)
ADD_SCALED = defop(
    "add_scaled",
    lambda xp, x, y, *, alpha: multiply_add(alpha, y, x),  # fused, as PyTorch's kernel
    {"x": lambda g: g, "y": lambda g, alpha: g * conjugate(alpha)},
    node="AddBackward0",
    promote=promotion.binary,
    array_backward=FORMULAS,
)
SUB = defop(
    "sub",
    lambda xp, x, y: x - y,
    {"x": lambda g: g, "y": lambda g: -g},
    promote=promotion.subtraction,
    array_backward=FORMULAS,
)
SUB_SCALED = defop(
    "sub_scaled",
    lambda xp, x, y, *, alpha: multiply_add(-alpha, y, x),
    {"x": lambda g: g, "y": lambda g, alpha: g * -conjugate(alpha)},
    node="SubBackward0",
    promote=promotion.subtraction,
    array_backward=FORMULAS,
)
# y - x for a Python number y: PyTorch's `1 - x` is RsubBackward1, tensor-tensor RsubBackward0
RSUB = defop(
    "rsub",
    lambda xp, x, y: y - x,
    {"x": lambda g: -g, "y": lambda g: g},
    node="RsubBackward0",
    promote=promotion.subtraction,
    array_backward=FORMULAS,
)
RSUB_SCALAR = defop(
    "rsub_scalar",
    lambda xp, x, y: y - x,
    {"x": lambda g: -g},
    node="RsubBackward1",
    promote=promotion.subtraction,
    array_backward=FORMULAS,
)
# torch.rsub(x, y, alpha=a): y - a * x, one node with alpha among its attributes
RSUB_SCALED = defop(
    "rsub_scaled",
    lambda xp, x, y, *, alpha: multiply_add(-alpha, x, y),
    {"x": lambda g, alpha: g * -conjugate(alpha), "y": lambda g: g},
    node="RsubBackward0",
    promote=promotion.subtraction,
    array_backward=FORMULAS,
)
RSUB_SCALAR_SCALED = defop(
    "rsub_scalar_scaled",
    lambda xp, x, y, *, alpha: multiply_add(-alpha, x, y),
    {"x": lambda g, alpha: g * -conjugate(alpha)},
    node="RsubBackward1",
    promote=promotion.subtraction,
    array_backward=FORMULAS,
)
# The hottest rows' array kernels are their formulas without the conjugates: array backwards
# run on real floating arrays only (complex gradients take the formulas: Note [Array
# backwards], Note [Complex gradients]), where a conjugate is the identity but still a call.
MUL = defop(
    "mul",
    lambda xp, x, y: x * y,
    {"x": lambda g, y: g * conjugate(y), "y": lambda g, x: g * conjugate(x)},
    promote=promotion.binary,
    array_backward=ArrayBackward(
        lambda xp, needs, g, x, y: (g * y if needs[0] else None, g * x if needs[1] else None)
    ),
)
DIV = defop(
    "div",
    lambda xp, x, y: x / y,
    {"x": lambda g, y: g / conjugate(y), "y": lambda g, x, y: -g * conjugate(x / (y * y))},
    promote=promotion.binary_floating,
    array_backward=ArrayBackward(
        lambda xp, needs, g, x, y: (
            g / y if needs[0] else None,
            -g * (x / (y * y)) if needs[1] else None,
        )
    ),
)
# div with an explicit rounding_mode=None: PyTorch's div.Tensor_mode overload, its own node
DIV_MODE = defop(
    "div_mode",
    lambda xp, x, y: x / y,
    {"x": lambda g, y: g / conjugate(y), "y": lambda g, x, y: -g * conjugate(x / (y * y))},
    node="DivBackward2",
    promote=promotion.binary_floating,
    array_backward=FORMULAS,
)
NEG = defop("neg", lambda xp, x: -x, {"x": lambda g: -g}, array_backward=FORMULAS)
RECIPROCAL = defop(
    "reciprocal",
    lambda xp, x: 1 / x,
    {"x": lambda g, out: -g * conjugate(out * out)},
    promote=promotion.floating,
    array_backward=FORMULAS,
)


def _pow_scalar_grad(g, x, y):
    # d(x^c)/dx = c x^(c-1); PyTorch returns exact zeros for c == 0 (no 0 * inf = nan)
    if y == 0:
        return g * 0
    return g * conjugate(y * x.pow(y - 1))


def _pow_base_grad(g, x, y):
    return where(y == 0, 0.0, g * conjugate(y * x.pow(y - 1)))


def _pow_exponent_grad(g, x, y, out):
    # d(x^y)/dy = x^y log x, taken as 0 where x == 0 and y >= 0 (the limit PyTorch uses); at
    # x == 0 and y < 0 it is inf * -inf = -inf, as PyTorch's
    return g * conjugate(where((x == 0) & (y >= 0), 0.0, out * x.log()))


def _rpow_exponent_grad(g, x, y, out):
    # a number base: PyTorch's rule with log of the number (nan for a negative base)
    if x == 0:
        return g * where(y >= 0, 0.0, -math.inf)
    return g * out * (math.log(x) if x > 0 else math.nan)


def _power(xp, x, y):
    # PyTorch's integer rules: no bool kernel (except tensor ** Python bool), no negative Python
    # int exponent, and a negative tensor exponent gives 0 unless the base is 1 or -1
    if x.dtype == bool:
        if type(y) is not bool:
            raise NotImplementedError("\"pow\" not implemented for 'Bool'")
        return x.copy() if y else xp.ones_like(x)
    if x.dtype.kind in "iu":
        if type(y) is int and y < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if type(y) is xp.ndarray and y.dtype.kind == "i" and (y < 0).any():
            out = x ** xp.abs(y)
            odd = (y % 2).astype(bool)
            inverse = xp.where(x == 1, 1, xp.where(x == -1, xp.where(odd, -1, 1), 0))
            return xp.where(y < 0, inverse, out).astype(out.dtype, copy=False)
    if (type(y) is int or type(y) is float) and x.dtype in dtypes.LOW_PRECISION:
        return _reduced_power(x, y)
    return x**y


def _reduced_power(x, y):
    # PyTorch's float16/bfloat16 `x ** number`: the exponent cast to the tensor's dtype; cubes
    # and inverse squares as products (each step rounded for bfloat16, in float32 for float16);
    # any other power in float32, rounded once (See Note [Reduced-precision opmath])
    if y == 3 or y == -2:
        w = x if x.dtype.kind == "V" else x.astype(np.float32)  # (V: bfloat16)
        return ((w * w) * w if y == 3 else 1 / (w * w)).astype(x.dtype, copy=False)
    return (x.astype(np.float32) ** np.float32(x.dtype.type(y))).astype(x.dtype)


def _pow_scalar_kernel(xp, needs, g, x, y):
    # _pow_scalar_grad on arrays (Note [Array backwards]), operation for operation
    if y == 0:
        return (g * 0, None)
    return (g * (y * _power(xp, x, y - 1)), None)


POW = defop(
    "pow",
    _power,
    {"x": _pow_scalar_grad},
    promote=promotion.power,
    array_backward=ArrayBackward(_pow_scalar_kernel),
)
POW_TENSOR = defop(
    "pow_tensor",
    _power,
    {"x": _pow_base_grad, "y": _pow_exponent_grad},
    node="PowBackward1",
    promote=promotion.rpower,
)
# a Python number raised to a tensor: torch.pow(2, x) / 2 ** x
RPOW = defop(
    "rpow",
    lambda xp, y, x: _power(xp, xp.asarray(x, xp.result_type(y, x)), y),
    {"y": _rpow_exponent_grad},
    node="PowBackward2",
    promote=promotion.rpower,
)

EXP = defop(
    "exp",
    lambda xp, x: xp.exp(x),
    {"x": lambda g, out: g * conjugate(out)},
    promote=promotion.floating,
    array_backward=ArrayBackward(lambda xp, needs, g, out: (g * out,)),
)
LOG = defop(
    "log",
    lambda xp, x: xp.log(x),
    {"x": lambda g, x: g / conjugate(x)},
    promote=promotion.floating,
    array_backward=FORMULAS,
)
SQRT = defop(
    "sqrt",
    lambda xp, x: xp.sqrt(x),
    {"x": lambda g, out: g / (2 * conjugate(out))},
    promote=promotion.floating,
    array_backward=FORMULAS,
)
SIN = defop(
    "sin",
    lambda xp, x: xp.sin(x),
    {"x": lambda g, x: g * conjugate(x.cos())},
    promote=promotion.floating,
)
COS = defop(
    "cos",
    lambda xp, x: xp.cos(x),
    {"x": lambda g, x: g * -conjugate(x.sin())},
    promote=promotion.floating,
)
TANH = defop(
    "tanh",
    lambda xp, x: xp.tanh(x),
    {"x": lambda g, out: g * conjugate(1 - out * out)},
    promote=promotion.floating,
    array_backward=ArrayBackward(lambda xp, needs, g, out: (g * (1 - out * out),)),
)
SIGMOID = defop(
    "sigmoid",
    lambda xp, x: _sigmoid(xp, x),
    {"x": lambda g, out: g * conjugate(out * (1 - out))},
    promote=promotion.floating,
    array_backward=ArrayBackward(lambda xp, needs, g, out: (g * (out * (1 - out)),)),
)


def _relu(xp, x):
    try:
        zero = _ZEROS[x.dtype]
    except KeyError:
        zero = _zero(xp, x.dtype)
    return xp.maximum(x, zero)


def _no_bool(arrays, args):
    # (the fast path only sees floating arrays: this runs for the others alone)
    if arrays[0].dtype == bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    return arrays


RELU = defop(
    "relu",
    _relu,
    {"x": lambda g, out: threshold_backward(g, out, 0)},
    promote=_no_bool,
    array_backward=ArrayBackward(lambda xp, needs, g, out: (g * (out > 0),)),
)
# PyTorch's own backward of relu/threshold: the gradient where y > threshold, else 0
THRESHOLD_BACKWARD = defop(
    "threshold_backward",
    lambda xp, grad, y, *, threshold: grad * (y > threshold),
    {
        "grad": lambda g, y, threshold: threshold_backward(g, y, threshold),
        "y": lambda g: g.new_zeros(g.shape),
    },
)


def threshold_backward(grad, y, threshold):
    """Matches `torch.ops.aten.threshold_backward`: `grad` where `y > threshold`, else 0."""
    return apply(THRESHOLD_BACKWARD, (grad, y), {"threshold": threshold})


ABS = defop(
    "abs",
    lambda xp, x: xp.abs(x),
    {"x": lambda g, x: g * x.sgn()},  # sign for reals, x / |x| for complex numbers
    promote=promotion.no_bool("abs_cpu"),
)
SIGN = defop("sign", lambda xp, x: _sign(xp, x), {"x": lambda g: g * 0})


def _sign(xp, x):
    # PyTorch: sign(NaN) is 0 (NumPy's is NaN) and a bool tensor is its own sign
    if x.dtype == bool:
        return x.copy()
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


_ZEROS: dict = {}


def _zero(xp, dtype):
    # a 0-d zero of the array's dtype: NumPy takes it twice as fast as the Python number 0
    zero = _ZEROS.get(dtype)
    if zero is None:
        zero = _ZEROS[dtype] = xp.zeros((), dtype)
    return zero


def _sigmoid(xp, x):
    # PyTorch's own 1 / (1 + e^-x): e^-x overflowing to inf gives exactly 0 below x = -88.7
    # in float32, as torch does (a sign-split form would give denormals there)
    if x.dtype.itemsize < 4:  # half types compute in float32 and round once, as torch does
        return _sigmoid(xp, x.astype(xp.float32)).astype(x.dtype)
    e = xp.negative(x, out=xp.empty_like(x))  # out=: an array even for 0-d input
    xp.exp(e, out=e)
    e += 1
    return xp.reciprocal(e, out=e)


# fast forms of the rows users call most (see Note [Hot path])
_add, _sub, _mul, _div = binary(ADD), binary(SUB), binary(MUL), binary(DIV)
_neg = unary(NEG)  # backward formulas negate often (`-g`)
_rsub_scalar = binary(RSUB_SCALAR)
_reciprocal = unary(RECIPROCAL)

# ---- the public surface ----------------------------------------------------------------------


def _check_alpha(input, other, alpha) -> None:
    # PyTorch checks alpha against the result type of its inputs, once their shapes broadcast
    promotion.check_broadcast([x._data for x in (input, other) if isinstance(x, Tensor)])
    result = promotion.result_type(input, other)
    if type(alpha) is bool and result is not dtypes.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and not (result.is_floating_point or result.is_complex):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )


@public
def add(input, other, *, alpha=1, out=None):
    """Matches `torch.add`: input + alpha * other."""
    if alpha != 1 or type(alpha) is not int:
        _check_alpha(input, other, alpha)
        if type(alpha) is bool:  # only for a bool result: True adds, False leaves input
            return add(input, other) if alpha else add(input, other * False)
        return apply(ADD_SCALED, (input, other), {"alpha": alpha})
    if isinstance(input, Tensor):
        return _add(input, other)
    return apply(ADD, (input, other))


@public
def sub(input, other, *, alpha=1, out=None):
    """Matches `torch.sub`: input - alpha * other."""
    if alpha != 1 or type(alpha) is not int:
        _check_alpha(input, other, alpha)
        return apply(SUB_SCALED, (input, other), {"alpha": alpha})
    return apply(SUB, (input, other))


subtract = public(sub, name="subtract")


@public(method=False)
def rsub(input, other, *, alpha=1):
    """Matches `torch.rsub`: other - alpha * input."""
    if alpha != 1 or type(alpha) is not int:
        _check_alpha(input, other, alpha)
        op = RSUB_SCALED if isinstance(other, Tensor) else RSUB_SCALAR_SCALED
        return apply(op, (input, other), {"alpha": alpha})
    if isinstance(other, Tensor):
        return apply(RSUB, (input, other))
    return apply(RSUB_SCALAR, (input, other))


@public
def mul(input, other, *, out=None):
    """Matches `torch.mul`."""
    if isinstance(input, Tensor):
        return _mul(input, other)
    return apply(MUL, (input, other))


multiply = public(mul, name="multiply")


class _NotGiven:
    """The default of `rounding_mode`: PyTorch tells `div(x, y)` (div.Tensor, DivBackward0)
    from `div(x, y, rounding_mode=None)` (div.Tensor_mode, DivBackward2)."""

    def __repr__(self) -> str:
        return "None"


_NOT_GIVEN = _NotGiven()


@public
def div(input, other, *, rounding_mode=_NOT_GIVEN, out=None):
    """Matches `torch.div`; `rounding_mode` 'trunc' or 'floor' give integer-valued results."""
    if rounding_mode is _NOT_GIVEN:
        return _div(input, other) if isinstance(input, Tensor) else apply(DIV, (input, other))
    if rounding_mode is None:
        return apply(DIV_MODE, (input, other))
    return divide_rounded(input, other, rounding_mode)


true_divide = public(lambda input, other: apply(DIV, (input, other)), name="true_divide")
divide = public(div, name="divide")


@public
def pow(input, exponent, *, out=None):
    """Matches `torch.pow`: tensor ** number, tensor ** tensor, number ** tensor."""
    if not isinstance(input, Tensor):
        return apply(RPOW, (exponent, input))
    if isinstance(exponent, Tensor):
        return apply(POW_TENSOR, (input, exponent))
    return apply(POW, (input, exponent))


@public
def neg(input):
    """Matches `torch.neg`."""
    _check_not_bool(input)
    return _neg(input)


def _check_not_bool(input):
    if input._data.dtype == bool:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )


negative = public(neg, name="negative")


exp = public_unary("exp", EXP)
log = public_unary("log", LOG)
sqrt = public_unary("sqrt", SQRT)
sin = public_unary("sin", SIN)
cos = public_unary("cos", COS)
tanh = public_unary("tanh", TANH)
sigmoid = public_unary("sigmoid", SIGMOID)
relu = public_unary("relu", RELU)
abs = public_unary("abs", ABS)
sign = public_unary("sign", SIGN, inplace_function=False)  # torch.sign_ is missing
reciprocal = public_unary("reciprocal", RECIPROCAL)
absolute = public(abs, name="absolute")
absolute_ = public(METHODS["abs_"], name="absolute_", function=False)

# ---- in-place and operator methods ----------------------------------------------------------


def _inplace_binary(name, op_plain, op_scaled=None):
    def method(self, other, *, alpha=1):
        if alpha != 1 or type(alpha) is not int:
            _check_alpha(self, other, alpha)
            return apply_inplace(op_scaled, (self, other), {"alpha": alpha}, name=name)
        return apply_inplace(op_plain, (self, other), name=name)

    method.__name__ = name
    public(method, function=False)
    return method


add_ = _inplace_binary("add_", ADD, ADD_SCALED)
sub_ = _inplace_binary("sub_", SUB, SUB_SCALED)
mul_ = _inplace_binary("mul_", MUL)
subtract_ = public(sub_, name="subtract_", function=False)
multiply_ = public(mul_, name="multiply_", function=False)


@public(function=False)
def div_(self, other, *, rounding_mode=_NOT_GIVEN):
    if rounding_mode is _NOT_GIVEN or rounding_mode is None:
        op = DIV if rounding_mode is _NOT_GIVEN else DIV_MODE
        return apply_inplace(op, (self, other), name="div_")
    return divide_rounded_(self, other, rounding_mode)


divide_ = public(div_, name="divide_", function=False)
true_divide_ = public(lambda self, other: div_(self, other), name="true_divide_", function=False)


@public(function=False)
def pow_(self, exponent):
    op = POW_TENSOR if isinstance(exponent, Tensor) else POW
    return apply_inplace(op, (self, exponent), name="pow_")


@public
def neg_(self):
    _check_not_bool(self)
    return apply_inplace(NEG, (self,), name="neg_")


negative_ = public(neg_, name="negative_")


_OPERATORS = {
    "__add__": _add,
    "__radd__": _add,  # other + self: PyTorch records it as self.add(other)
    "__iadd__": lambda self, other: apply_inplace(ADD, (self, other), name="add_"),
    "__sub__": lambda self, other: (
        _sub(self, other) if self._data.dtype != bool else sub(self, other)
    ),
    # `1 - x` (in tanh's and sigmoid's backward, among others) takes the fast form
    "__rsub__": lambda self, other: (
        _rsub_scalar(self, other)
        if type(other) is float or type(other) is int
        else rsub(self, other)
    ),
    "__isub__": lambda self, other: apply_inplace(SUB, (self, other), name="sub_"),
    "__mul__": _mul,
    "__rmul__": _mul,
    "__imul__": lambda self, other: apply_inplace(MUL, (self, other), name="mul_"),
    "__truediv__": _div,
    # PyTorch computes `2 / x` as reciprocal(x) * 2, hence MulBackward0
    "__rtruediv__": lambda self, other: _mul(_reciprocal(self), other),
    "__itruediv__": lambda self, other: apply_inplace(DIV, (self, other), name="div_"),
    "__pow__": lambda self, other: pow(self, other),
    "__rpow__": lambda self, other: pow(other, self),
    "__ipow__": lambda self, other: pow_(self, other),
    "__neg__": lambda self: neg(self),
    "__pos__": lambda self: self,
    "__abs__": lambda self: apply(ABS, (self,)),
    "__eq__": lambda self, other: eq(self, other) if _comparable(other) else NotImplemented,
    "__ne__": lambda self, other: ne(self, other) if _comparable(other) else NotImplemented,
    "__lt__": lambda self, other: lt(self, other),
    "__le__": lambda self, other: le(self, other),
    "__gt__": lambda self, other: gt(self, other),
    "__ge__": lambda self, other: ge(self, other),
    "__invert__": lambda self: _invert(self),
    "__and__": lambda self, other: _bitwise("and", self, other),
    "__or__": lambda self, other: _bitwise("or", self, other),
    "__xor__": lambda self, other: _bitwise("xor", self, other),
    "__rand__": lambda self, other: _bitwise("and", self, other),
    "__ror__": lambda self, other: _bitwise("or", self, other),
    "__rxor__": lambda self, other: _bitwise("xor", self, other),
}


def _comparable(other) -> bool:
    return isinstance(other, (Tensor, bool, int, float, complex))


BITWISE_NOT = defop("bitwise_not", lambda xp, x: ~x)
BITWISE = {
    kind: defop(f"bitwise_{kind}", fn, promote=promotion.integral(f"bitwise_{kind}_cpu"))
    for kind, fn in (
        ("and", lambda xp, x, y: x & y),
        ("or", lambda xp, x, y: x | y),
        ("xor", lambda xp, x, y: x ^ y),
    )
}


def _invert(self):
    if self.is_floating_point():
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return apply(BITWISE_NOT, (self,))


def _bitwise(kind, self, other):
    return apply(BITWISE[kind], (self, other))


for _name, _fn in _OPERATORS.items():
    public(_fn, name=_name, function=False)
