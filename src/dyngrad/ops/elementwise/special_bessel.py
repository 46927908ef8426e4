"""Modified Bessel functions of the first kind: `i0` (I0Backward0) and `special.i1`
(SpecialI1Backward0), whose formulas refer to each other, so every order differentiates."""

from __future__ import annotations

import numpy as np

from ..table import promotion
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public_unary


def i0_array(x):
    """I0 on an array (NumPy's Clenshaw-Curtis form), in x's dtype."""
    with np.errstate(over="ignore", invalid="ignore"):  # inf beyond the range, as PyTorch
        return np.asarray(np.i0(x)).astype(np.asarray(x).dtype, copy=False)


def i1_array(x):
    """I1 by its power series sum_k (x/2)^(2k+1) / (k! (k+1)!): every term has x's sign, so
    the sum keeps full relative precision; 500 terms cover |x| up to float64's range."""
    a = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # inf beyond the range, as PyTorch
        return _i1_series(a).astype(np.asarray(x).dtype, copy=False)


def _i1_series(a):
    half = a / 2
    term = half.copy()
    total = term.copy()
    square = half * half
    for k in range(500):
        term = term * square / ((k + 1) * (k + 2))
        total = total + term
        if not np.any(np.abs(term) > 1e-17 * np.abs(total)):
            break
    return total


def _i1_grad(g, x):
    # I1'(x) = I0(x) - I1(x) / x, and 1/2 at 0
    ratio = (apply(I1, (x,)) / x).masked_fill(x == 0, 0.5)
    return g * (apply(I0, (x,)) - ratio).masked_fill(x == 0, 0.5)


I0 = defop(
    "i0",
    lambda xp, x: i0_array(x),
    {"x": lambda g, x: g * apply(I1, (x,))},  # I0' = I1
    promote=promotion.floating,
)
I1 = defop(
    "special_i1",
    lambda xp, x: i1_array(x),
    {"x": _i1_grad},
    promote=promotion.floating,
    node="SpecialI1Backward0",
)

i0 = public_unary("i0", I0, lambda input: apply(I0, (input,)), inplace_function=True)


def special_i1(input):
    """Matches `torch.special.i1`."""
    return apply(I1, (input,))
