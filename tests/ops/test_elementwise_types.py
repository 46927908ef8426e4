"""Type promotion, integer and bool arithmetic, and in-place casts, against torch."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import dyngrad

from .oracle import same

DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
# no complex32 in NumPy: PyTorch's half + complex promotes to it, dyngrad to complex64
_COMPLEX32_CASES = {"float16"}


def _complex32(torch_dtype) -> bool:
    return str(torch_dtype) == "torch.complex32"


def test_promote_types_and_can_cast_match_torch_on_every_pair(torch):
    for a, b in itertools.product(DTYPES, DTYPES):
        da, db = getattr(dyngrad, a), getattr(dyngrad, b)
        ta, tb = getattr(torch, a), getattr(torch, b)
        assert repr(dyngrad.promote_types(da, db)) == repr(torch.promote_types(ta, tb)), (a, b)
        assert dyngrad.can_cast(da, db) == torch.can_cast(ta, tb), (a, b)


@pytest.mark.parametrize("shapes", [((2,), (2,)), ((), (2,)), ((2,), ()), ((), ())])
def test_result_type_of_tensors_matches_torch(torch, shapes):
    for a, b in itertools.product(DTYPES, DTYPES):
        expected = torch.result_type(
            torch.zeros(shapes[0], dtype=getattr(torch, a)),
            torch.zeros(shapes[1], dtype=getattr(torch, b)),
        )
        if _complex32(expected):
            continue
        ours = dyngrad.result_type(
            dyngrad.zeros(shapes[0], dtype=getattr(dyngrad, a)),
            dyngrad.zeros(shapes[1], dtype=getattr(dyngrad, b)),
        )
        assert repr(ours) == repr(expected), (a, b, shapes)


@pytest.mark.parametrize("scalar", [True, 2, -3, 2.5, 1j])
def test_result_type_with_python_numbers_matches_torch(torch, scalar):
    for a, shape in itertools.product(DTYPES, [(2,), ()]):
        x = torch.zeros(shape, dtype=getattr(torch, a))
        dx = dyngrad.zeros(shape, dtype=getattr(dyngrad, a))
        for expected, ours in (
            (torch.result_type(x, scalar), dyngrad.result_type(dx, scalar)),
            (torch.result_type(scalar, x), dyngrad.result_type(scalar, dx)),
        ):
            if not _complex32(expected):
                assert repr(ours) == repr(expected), (a, shape, scalar)


def test_result_type_of_two_numbers_matches_torch(torch):
    for a, b in itertools.product([True, 2, 2.5, 1j], repeat=2):
        assert repr(dyngrad.result_type(a, b)) == repr(torch.result_type(a, b)), (a, b)


def test_default_dtype_changes_what_numbers_promote_to(torch):
    dyngrad.set_default_dtype(dyngrad.float64)
    torch.set_default_dtype(torch.float64)
    try:
        same(torch, "x / 2", x=np.array([1, 2]))
        same(torch, "x + 2.5", x=np.array([1, 2]))
        same(torch, "t.exp(x)", x=np.array([1, 2]))
        same(torch, "t.where(x > 1, 1.0, 0)", x=np.array([1, 2]))
    finally:
        torch.set_default_dtype(torch.float32)


BINARY = [
    "a + b",
    "a - b",
    "a * b",
    "a / b",
    "a // b",
    "a % b",
    "t.fmod(a, b)",
    "a ** b",
    "t.div(a, b, rounding_mode='trunc')",
    "t.div(a, b, rounding_mode='floor')",
    "t.maximum(a, b)",
    "t.atan2(a, b)",
    "a == b",
    "a < b",
    "t.logical_xor(a, b)",
    "t.where(a > 1, a, b)",
    "t.clamp(a, b, b)",
    "a & b",
    "t.addcmul(a, a, b)",
    "t.addcdiv(a, a, b)",
    "t.lerp(a, b, 0.5)",
    "t.isclose(a, b)",
]
SMALL = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64"]


def _values(name, shape, seed=0):
    rng = np.random.default_rng(seed)
    if name == "bool":
        return np.asarray(rng.random(shape) > 0.5)
    return np.asarray(rng.integers(1, 4, shape).astype(name))


@pytest.mark.parametrize("expr", BINARY)
def test_binary_dtype_grid_matches_torch(torch, expr):
    """Each dtype pair (dimensioned and 0-d): the same dtype and values, or the same error."""
    for a, b in itertools.product(SMALL, SMALL):
        for sa, sb in (((3,), (3,)), ((3,), ())):
            same(torch, expr, a=_values(a, sa), b=_values(b, sb, 1))


SCALAR_EXPRS = [
    "a + s",
    "s + a",
    "a - s",
    "s - a",
    "a * s",
    "a / s",
    "s / a",
    "a // s",
    "s // a",
    "a % s",
    "s % a",
    "a ** s",
    "s ** a",
    "a == s",
    "a < s",
    "t.where(a > 1, a, s)",
    "t.where(a > 1, s, 1.5)",
    "t.clamp(a, s)",
    "t.addcmul(a, a, a, value=s)",
    "a & s",
    "t.lerp(a, a, s)",
]


@pytest.mark.parametrize("expr", SCALAR_EXPRS)
def test_python_number_grid_matches_torch(torch, expr):
    for a, s in itertools.product(SMALL, [True, 2, 2.5, -1]):
        if expr in ("t.clamp(a, s)", "t.addcmul(a, a, a, value=s)") and a == "uint8" and s == -1:
            continue  # PyTorch wraps -1 to 255 here; dyngrad raises NumPy's OverflowError
        same(torch, expr, a=_values(a, (3,)), s=s)


def test_integer_scalars_wrap_like_c(torch):
    u8 = np.array([0, 1, 200], np.uint8)
    for expr in ("a - -1", "a + 300", "a * 1000", "a == 256", "a < -1", "a // -2"):
        same(torch, expr, a=u8)
    same(torch, "a * 1000", a=np.array([1, -3], np.int8))


INT_DIVISION = [
    "a // b",
    "a % b",
    "t.fmod(a, b)",
    "t.div(a, b, rounding_mode='trunc')",
    "t.div(a, b, rounding_mode='floor')",
    "t.remainder(a, b)",
    "a / b",
]


@pytest.mark.parametrize("expr", INT_DIVISION)
def test_integer_division_rounds_like_torch(torch, expr):
    a = np.array([-7, 7, -7, 7, 0, 9, -9, 1, -1])
    b = np.array([2, -2, -2, 2, 3, -4, 4, 5, 5])
    same(torch, expr, a=a, b=b)
    same(torch, expr, a=a.astype(np.int8), b=b.astype(np.int8))
    same(torch, expr.replace("b", "3"), a=a)
    same(torch, expr.replace("b", "-3"), a=a)


@pytest.mark.parametrize(
    "expr",
    [
        "a // b",
        "a % b",
        "t.fmod(a, b)",
        "a // 0",
        "a % 0",
        "t.div(a, 0, rounding_mode='trunc')",
        "5 // b",
        "5 % b",
    ],
)
def test_integer_division_by_zero_raises(torch, expr):
    same(torch, expr, a=np.array([1, 2]), b=np.array([1, 0]))
    same(torch, expr, a=np.array([True, False]), b=np.array([True, False]))


BOOL_EXPRS = [
    "a + b",
    "a * b",
    "a - b",
    "a / b",
    "-a",
    "a + 1",
    "a * 2.5",
    "a - 1",
    "1 - a",
    "a ** 2",
    "a ** True",
    "a ** b",
    "2 ** a",
    "True ** a",
    "a & b",
    "a | b",
    "a ^ b",
    "~a",
    "a // 2",
    "a % 2",
    "a.sum()",
    "a.abs()",
    "a.sign()",
    "a.floor()",
    "a.square()",
    "a.neg()",
    "t.maximum(a, b)",
    "t.clamp(a, 0, 1)",
    "t.clamp(a, b, b)",
    "t.clamp(a, True, True)",
    "a.reciprocal()",
    "a.exp()",
    "a.logical_not()",
]


@pytest.mark.parametrize("expr", BOOL_EXPRS)
def test_bool_arithmetic_matches_torch(torch, expr):
    same(torch, expr, a=np.array([True, False, True]), b=np.array([True, True, False]))


INPLACE_CASTS = [
    "a.add_(f)",
    "a.mul_(1.5)",
    "a.div_(2)",
    "a.sub_(f)",
    "a.exp_()",
    "a.sqrt_()",
    "a.floor_divide_(2.5)",
    "a.remainder_(f)",
    "a.atan2_(a)",
    "a.addcmul_(f, f)",
    "a.clamp_(0.5, 1.5)",
    "a.clamp_min_(0.5)",
    "a.clamp_(f, f)",
    "a.pow_(0.5)",
    "a.div_(2, rounding_mode='trunc')",
    "a.div_(2.5, rounding_mode='floor')",
    "a.lerp_(a, 0.5)",
    "a.erf_()",
    "a.round_()",
    "a.eq_(f)",
    "a.logical_and_(f)",
]


@pytest.mark.parametrize("expr", INPLACE_CASTS)
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_inplace_cast_errors_match_torch(torch, expr, dtype):
    """`result type Float can't be cast to the desired output type Long` and friends."""
    same(torch, expr, a=np.array([1, 0, 1]).astype(dtype), f=np.array([0.5, 1.0, 2.0]))


def test_inplace_keeps_dtype_when_the_cast_is_allowed(torch):
    for expr in (
        "f.add_(a)",
        "f.mul_(a)",
        "f.div_(a)",
        "f.floor_divide_(a)",
        "f.fmod_(a)",
        "f.clamp_(a)",
        "f.eq_(a)",
        "f.logical_or_(a)",
        "a.add_(a)",
        "a.floor_divide_(a)",
    ):
        same(torch, expr, a=np.array([1, 2, 3]), f=np.array([0.5, 1.0, 2.0], np.float32))
