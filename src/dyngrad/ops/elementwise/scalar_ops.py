"""Arithmetic with a Python number as PyTorch's C++ code records it: add, sub, mul and div
(Tensor, Scalar), nodes AddBackward1, SubBackward1, MulBackward1 and DivBackward1 (a
Tensor-level `x * 2` is MulBackward0, the number wrapped as a tensor). The foreach in-place
ops with a Scalar record these."""

from __future__ import annotations

from ..table.record import apply
from ..table.registry import defop

ADD_SCALAR = defop(
    "add_scalar",
    lambda xp, x, *, other: x + other,
    {"x": lambda g: g},
    node="AddBackward1",
)
SUB_SCALAR = defop(
    "sub_scalar",
    lambda xp, x, *, other: x - other,
    {"x": lambda g: g},
    node="SubBackward1",
)
MUL_SCALAR = defop(
    "mul_scalar",
    lambda xp, x, *, other: x * other,
    {"x": lambda g, other: mul_scalar(g, other)},
    node="MulBackward1",
)
DIV_SCALAR = defop(
    "div_scalar",
    lambda xp, x, *, other: x / other,
    {"x": lambda g, other: div_scalar(g, other)},
    node="DivBackward1",
)


def add_scalar(input, other):
    """ATen's add(Tensor, Scalar): `input + other`, recorded as AddBackward1."""
    return apply(ADD_SCALAR, (input,), {"other": other})


def mul_scalar(input, other):
    """ATen's mul(Tensor, Scalar): `input * other`, recorded as MulBackward1."""
    return apply(MUL_SCALAR, (input,), {"other": other})


def div_scalar(input, other):
    """ATen's div(Tensor, Scalar): `input / other`, recorded as DivBackward1."""
    return apply(DIV_SCALAR, (input,), {"other": other})
