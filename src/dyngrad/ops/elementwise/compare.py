"""Comparisons and logic, `where`, `maximum`/`minimum`, `clamp`, and closeness tests."""

from __future__ import annotations

from ..._tensor import Tensor
from ...runtime import dtypes
from ..table import promotion
from ..table.arguments import fill_value
from ..table.errors import c_type_name, expect_tensor
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public

# ---- the table ------------------------------------------------------------------------------


def _tie_split(g, x, y, loses):
    # maximum/minimum: where x == y each side gets half the gradient, as in PyTorch
    return where(x == y, g / 2, g).masked_fill(loses, 0)


MAXIMUM = defop(
    "maximum",
    lambda xp, x, y: xp.maximum(x, y),
    {
        "x": lambda g, x, y: _tie_split(g, x, y, x < y),
        "y": lambda g, x, y: _tie_split(g, x, y, x > y),
    },
    promote=promotion.binary,
)
MINIMUM = defop(
    "minimum",
    lambda xp, x, y: xp.minimum(x, y),
    {
        "x": lambda g, x, y: _tie_split(g, x, y, x > y),
        "y": lambda g, x, y: _tie_split(g, x, y, x < y),
    },
    promote=promotion.binary,
)
WHERE = defop(
    "where",
    lambda xp, condition, x, y: xp.where(condition, x, y),
    {
        "x": lambda g, condition: where(condition, g, 0.0),
        "y": lambda g, condition: where(condition, 0.0, g),
    },
    promote=promotion.where_values,
)


def _pass(g, mask):
    # the gradient where the mask holds, else 0: selected, not multiplied, so an infinite or
    # nan gradient outside the mask gives 0 (0 * inf would be nan), as PyTorch's clamp_backward
    return where(mask, g, 0.0)


# The gradient goes to whichever of x, lo, hi the result came from. PyTorch's tie rules:
# x keeps it on both bounds (lo <= x <= hi); when lo >= hi the result is hi, and hi takes the
# gradient only when lo > hi strictly (at lo == hi > x nobody does).
CLAMP = defop(
    "clamp",
    lambda xp, x, *, min, max: _clip(xp, x, min, max),
    {"x": lambda g, x, min, max: _pass(g, _in_bounds(x, min, max))},
    node="ClampBackward1",
)
CLAMP_TENSOR = defop(
    "clamp_tensor",
    lambda xp, x, lo, hi: _clip(xp, x, lo, hi),
    {
        "x": lambda g, x, lo, hi: _pass(g, _in_bounds(x, lo, hi)),
        "lo": lambda g, x, lo, hi: _pass(g, _lo_wins(x, lo, hi)),
        "hi": lambda g, x, lo, hi: _pass(g, _hi_wins(x, lo, hi)),
    },
    node="ClampBackward0",
    promote=promotion.binary,
)
CLAMP_MIN = defop(
    "clamp_min",
    lambda xp, x, *, min: xp.maximum(x, min),
    {"x": lambda g, x, min: _pass(g, x >= min)},
)
CLAMP_MAX = defop(
    "clamp_max",
    lambda xp, x, *, max: xp.minimum(x, max),
    {"x": lambda g, x, max: _pass(g, x <= max)},
)
CLAMP_MIN_TENSOR = defop(
    "clamp_min_tensor",
    lambda xp, x, lo: xp.maximum(x, lo),
    {"x": lambda g, x, lo: _pass(g, x >= lo), "lo": lambda g, x, lo: _pass(g, x < lo)},
    node="ClampMinBackward1",
    promote=promotion.binary,
)
CLAMP_MAX_TENSOR = defop(
    "clamp_max_tensor",
    lambda xp, x, hi: xp.minimum(x, hi),
    {"x": lambda g, x, hi: _pass(g, x <= hi), "hi": lambda g, x, hi: _pass(g, x > hi)},
    node="ClampMaxBackward1",
    promote=promotion.binary,
)


def _clip(xp, x, lo, hi):
    if lo is not None:
        x = xp.maximum(x, lo)
    if hi is not None:
        x = xp.minimum(x, hi)
    return x


def _in_bounds(x, lo, hi):
    if lo is None:
        return x <= hi
    if hi is None:
        return x >= lo
    return (x >= lo).logical_and(x <= hi)


def _lo_wins(x, lo, hi):
    return x < lo if hi is None else (x < lo).logical_and(lo < hi)


def _hi_wins(x, lo, hi):
    return x > hi if lo is None else (x > hi).logical_or(lo > hi)


def _compare(name, fn, aliases=()):
    op = defop(name, fn, promote=promotion.binary)

    def compare(input, other):
        return apply(op, (input, other))

    def compare_(self, other):
        return apply_inplace(op, (self, other), name=name + "_")

    compare.__name__, compare_.__name__ = name, name + "_"
    compare.__doc__ = f"Matches `torch.{name}`."
    for alias in (name, *aliases):
        public(compare, name=alias)
        public(compare_, name=alias + "_", function=False)
    return op, compare


EQ, eq = _compare("eq", lambda xp, x, y: x == y)
NE, ne = _compare("ne", lambda xp, x, y: x != y, ("not_equal",))
LT, lt = _compare("lt", lambda xp, x, y: x < y, ("less",))
LE, le = _compare("le", lambda xp, x, y: x <= y, ("less_equal",))
GT, gt = _compare("gt", lambda xp, x, y: x > y, ("greater",))
GE, ge = _compare("ge", lambda xp, x, y: x >= y, ("greater_equal",))
LOGICAL_AND = defop("logical_and", lambda xp, x, y: xp.logical_and(x, y))
LOGICAL_OR = defop("logical_or", lambda xp, x, y: xp.logical_or(x, y))
LOGICAL_XOR = defop("logical_xor", lambda xp, x, y: xp.logical_xor(x, y))
LOGICAL_NOT = defop("logical_not", lambda xp, x: xp.logical_not(x))
ISNAN = defop("isnan", lambda xp, x: xp.isnan(x))
ISINF = defop("isinf", lambda xp, x: xp.isinf(x))
ISFINITE = defop("isfinite", lambda xp, x: xp.isfinite(x))
ISPOSINF = defop("isposinf", lambda xp, x: xp.isposinf(x))
ISNEGINF = defop("isneginf", lambda xp, x: xp.isneginf(x))
ISCLOSE = defop(
    "isclose", lambda xp, x, y, *, rtol, atol, equal_nan: _isclose(xp, x, y, rtol, atol, equal_nan)
)


def _isclose(xp, x, y, rtol, atol, equal_nan):
    if x.dtype.kind == "b":  # |True - False| needs numbers
        x, y = x.astype(xp.int64), y.astype(xp.int64)
    close = x == y
    if equal_nan:
        close |= xp.isnan(x) & xp.isnan(y)
    # an infinite `other` is close only to itself: |x - inf| <= rtol * inf would say otherwise
    with xp.errstate(invalid="ignore", over="ignore"):
        close |= xp.isfinite(y) & (xp.abs(x - y) <= atol + rtol * xp.abs(y))
    return close


# ---- the public surface ----------------------------------------------------------------------


@public
def maximum(input, other):
    """Matches `torch.maximum`: ties split the gradient."""
    expect_tensor("maximum", "other", 2, other)
    return apply(MAXIMUM, (input, other))


@public
def minimum(input, other):
    """Matches `torch.minimum`: ties split the gradient."""
    expect_tensor("minimum", "other", 2, other)
    return apply(MINIMUM, (input, other))


@public(method=False)
def where(condition, input=None, other=None):
    """Matches `torch.where(condition, input, other)`; one argument gives `nonzero` tuples."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if not isinstance(condition, Tensor):
        raise TypeError("where(): argument 'condition' must be Tensor")
    if condition._data.dtype != bool:
        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor "
            f"with dtype {condition.dtype._legacy}"
        )
    return apply(WHERE, (condition, input, other))


@public(name="where", function=False)
def where_method(self, condition, y):
    """Matches `Tensor.where(condition, y)`: `torch.where(condition, self, y)`."""
    return where(condition, self, y)


@public
def clamp(input, min=None, max=None):
    """Matches `torch.clamp` with number or tensor bounds (`clip` is its alias)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if _tensor_bounds(min, max):
        if all(b is None or b._data.dtype == bool for b in (input, min, max)) and (
            min is not None and max is not None
        ):
            raise NotImplementedError("\"clamp_cpu\" not implemented for 'Bool'")
        return apply(CLAMP_TENSOR, (input, min, max))
    x = _promoted(input, min, max)
    return apply(CLAMP, (x,), _bounds(x, min=min, max=max))


clip = public(clamp, name="clip")


@public
def clamp_min(input, min):
    """Matches `torch.clamp_min`."""
    if isinstance(min, Tensor):
        return apply(CLAMP_MIN_TENSOR, (input, min))
    x = _promoted(input, _number(min, "clamp_min"), None)
    return apply(CLAMP_MIN, (x,), _bounds(x, min=min))


@public
def clamp_max(input, max):
    """Matches `torch.clamp_max`."""
    if isinstance(max, Tensor):
        return apply(CLAMP_MAX_TENSOR, (input, max))
    x = _promoted(input, None, _number(max, "clamp_max"))
    return apply(CLAMP_MAX, (x,), _bounds(x, max=max))


@public
def clamp_(self, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if _tensor_bounds(min, max):
        return apply_inplace(CLAMP_TENSOR, (self, min, max), name="clamp_")
    _check_scalar_inplace(self, min, max)
    return apply_inplace(CLAMP, (self,), _bounds(self, min=min, max=max), name="clamp_")


@public
def clamp_min_(self, min):
    if isinstance(min, Tensor):
        return apply_inplace(CLAMP_MIN_TENSOR, (self, min), name="clamp_min_")
    _check_scalar_inplace(self, _number(min, "clamp_min_"), None)
    return apply_inplace(CLAMP_MIN, (self,), _bounds(self, min=min), name="clamp_min_")


@public
def clamp_max_(self, max):
    if isinstance(max, Tensor):
        return apply_inplace(CLAMP_MAX_TENSOR, (self, max), name="clamp_max_")
    _check_scalar_inplace(self, None, _number(max, "clamp_max_"))
    return apply_inplace(CLAMP_MAX, (self,), _bounds(self, max=max), name="clamp_max_")


clip_ = public(clamp_, name="clip_")


def _tensor_bounds(min, max) -> bool:
    is_tensor = [isinstance(b, Tensor) for b in (min, max) if b is not None]
    if any(is_tensor) and not all(is_tensor):
        got = ", ".join(
            type(b).__name__ if not isinstance(b, Tensor) else "Tensor" for b in (min, max)
        )
        raise TypeError(
            f"clamp() received an invalid combination of arguments - got "
            f"(Tensor, {got}), but expected one of:"
        )
    return any(is_tensor)


def _number(bound, name):
    if bound is None:
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got "
            f"(NoneType), but expected one of:"
        )
    return bound


def _promoted(input, lo, hi):
    # float bounds on an integer tensor give a float result; a float tensor never changes
    if input._data.dtype.kind == "f":
        return input
    target = promotion.result_type(input, lo, hi)
    if target is dtypes.bool_:
        kernel = "clamp_max" if lo is None else "clamp_min" if hi is None else "clamp"
        raise NotImplementedError(f"\"{kernel}_scalar_cpu\" not implemented for 'Bool'")
    return input if target.np == input._data.dtype else input.to(target)


def _bounds(x, **bounds) -> dict:
    # each number bound is converted to the result's dtype, with PyTorch's overflow check
    return {k: None if b is None else fill_value(b, x.dtype) for k, b in bounds.items()}


def _check_scalar_inplace(self, lo, hi):
    target = promotion.result_type(self, lo, hi)
    if target is dtypes.bool_:
        kernel = "clamp_max" if lo is None else "clamp_min" if hi is None else "clamp"
        raise NotImplementedError(f"\"{kernel}_scalar_cpu\" not implemented for 'Bool'")
    if not dtypes.can_cast(target, self.dtype):
        raise RuntimeError(
            f"result type {target._legacy} can't be cast to the desired output "
            f"type {c_type_name(self.dtype)}"
        )


def _logical(name, op):
    def fn(input, other):
        expect_tensor(name, "other", 2, other)
        return apply(op, (input, other))

    def fn_(self, other):
        expect_tensor(name + "_", "other", 1, other)
        return apply_inplace(op, (self, other), name=name + "_")

    fn.__name__, fn_.__name__ = name, name + "_"
    fn.__doc__ = f"Matches `torch.{name}`."
    public(fn_, function=False)
    return public(fn)


logical_and = _logical("logical_and", LOGICAL_AND)
logical_or = _logical("logical_or", LOGICAL_OR)
logical_xor = _logical("logical_xor", LOGICAL_XOR)


@public
def logical_not(input):
    """Matches `torch.logical_not`."""
    return apply(LOGICAL_NOT, (input,))


@public(function=False)
def logical_not_(self):
    return apply_inplace(LOGICAL_NOT, (self,), name="logical_not_")


def _classify(name, op):
    def fn(input):
        expect_tensor(name, "input", 1, input)
        return apply(op, (input,))

    fn.__name__ = name
    fn.__doc__ = f"Matches `torch.{name}`."
    return public(fn)


isnan = _classify("isnan", ISNAN)
isinf = _classify("isinf", ISINF)
isfinite = _classify("isfinite", ISFINITE)
isposinf = _classify("isposinf", ISPOSINF)
isneginf = _classify("isneginf", ISNEGINF)


@public
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Matches `torch.isclose`: |input - other| <= atol + rtol * |other|, elementwise."""
    expect_tensor("isclose", "other", 2, other)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{input.dtype._legacy} did not match {other.dtype._legacy}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    return apply(ISCLOSE, (input, other), {"rtol": rtol, "atol": atol, "equal_nan": equal_nan})


@public
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """Matches `torch.allclose`: whether every element is close (shapes broadcast)."""
    expect_tensor("allclose", "input", 1, input)
    expect_tensor("allclose", "other", 2, other)
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


@public
def equal(input, other) -> bool:
    """Matches `torch.equal`: same shape and equal values (dtypes may differ; NaN != NaN)."""
    expect_tensor("equal", "other", 2, other)
    if input._data.shape != other._data.shape:
        return False
    return bool((input._data == other._data).all())
