"""Bitwise ops as functions and methods: and, or, xor, not and the two shifts.

The and/or/xor/not rows live beside the operators in `elementwise`; the shifts are here. A
shift by a negative amount or by the width of the type or more gives PyTorch's result (0, or
the sign for a right shift), not C's undefined one.
"""

from __future__ import annotations

import numpy as np

from ...runtime.dtypes import can_cast
from ..table import promotion
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .arithmetic import BITWISE, BITWISE_NOT


def _shift_amount(xp, x, y):
    y = xp.asarray(y)
    bits = x.dtype.itemsize * 8
    return y, bits, xp.clip(y, 0, bits - 1).astype(x.dtype)


def _lshift(xp, x, y):
    y, bits, amount = _shift_amount(xp, x, y)
    return xp.where((y < 0) | (y >= bits), 0, xp.left_shift(x, amount)).astype(x.dtype)


def _rshift(xp, x, y):
    y, bits, amount = _shift_amount(xp, x, y)
    return xp.where(
        (y < 0) | (y >= bits), xp.right_shift(x, bits - 1), xp.right_shift(x, amount)
    ).astype(x.dtype)


def _integers_only(kernel: str):
    # shifts have integer kernels only, no bool (`&` has both): `bool << 1` is int64
    def promote(arrays, args):
        target = promotion.result_type(*args)
        if target._category != 1:
            promotion.check_broadcast(arrays)
            raise promotion._missing_kernel(kernel, target.np)
        arrays = [a.astype(target.np, copy=False) if hasattr(a, "astype") else a for a in arrays]
        arrays = promotion.binary(arrays, args)  # a Python int wraps into the dtype first
        if not hasattr(arrays[0], "dtype"):  # `2 << t`: the number shifted is of t's type
            arrays[0] = np.asarray(arrays[0], target.np)
        return arrays

    return promote


LSHIFT = defop("bitwise_left_shift", _lshift, promote=_integers_only("lshift_cpu"))
RSHIFT = defop("bitwise_right_shift", _rshift, promote=_integers_only("rshift_cpu"))


def _not_floating(arrays, args):
    if arrays[0].dtype.kind not in "biu":
        raise promotion._missing_kernel("bitwise_not_cpu", arrays[0].dtype)
    return arrays


BITWISE_NOT_CHECKED = defop("bitwise_not_checked", BITWISE_NOT.fwd, promote=_not_floating)


def _publish(name: str, op) -> None:
    def fn(input, other):
        return apply(op, (input, other))

    def fn_(self, other):
        target = promotion.result_type(self, other)
        if not can_cast(target, self.dtype):
            raise RuntimeError(
                f"result type {target._legacy} can't be cast to the desired "
                f"output type {self.dtype._legacy}"
            )
        return apply_inplace(op, (self, other), name=name + "_")

    fn.__name__, fn_.__name__ = name, name + "_"
    fn.__doc__ = f"Matches `torch.{name}`."
    public(fn, name=name)
    public(fn_, name=name + "_", function=False)
    return fn_


for _kind, _op in BITWISE.items():
    # `t &= u` is `t.bitwise_and_(u)`: in place, counted on t's version
    public(_publish(f"bitwise_{_kind}", _op), name=f"__i{_kind}__", function=False)
_publish("bitwise_left_shift", LSHIFT)
_publish("bitwise_right_shift", RSHIFT)

public(lambda self, other: apply(LSHIFT, (self, other)), name="__lshift__", function=False)
public(lambda self, other: apply(RSHIFT, (self, other)), name="__rshift__", function=False)
# `2 << t`, as PyTorch's Tensor: the number shifted by each element
public(lambda self, other: apply(LSHIFT, (other, self)), name="__rlshift__", function=False)
public(lambda self, other: apply(RSHIFT, (other, self)), name="__rrshift__", function=False)
public(
    lambda self, other: apply_inplace(LSHIFT, (self, other), name="__ilshift__"),
    name="__ilshift__",
    function=False,
)
public(
    lambda self, other: apply_inplace(RSHIFT, (self, other), name="__irshift__"),
    name="__irshift__",
    function=False,
)


@public
def bitwise_not(input):
    """Matches `torch.bitwise_not`: integer and bool tensors only."""
    return apply(BITWISE_NOT_CHECKED, (input,))


@public(function=False)
def bitwise_not_(self):
    return apply_inplace(BITWISE_NOT_CHECKED, (self,), name="bitwise_not_")
