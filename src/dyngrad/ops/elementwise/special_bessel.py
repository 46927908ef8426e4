"""Bessel functions: `i0` (I0Backward0) and `special.i1` (SpecialI1Backward0), whose formulas
refer to each other, so every order differentiates; `special.i0e` and `special.i1e` likewise; and
torch.special's Bessel and Airy functions PyTorch does not differentiate."""

from __future__ import annotations

import numpy as np

from ..arrays import bessel
from ..table import promotion
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public_unary, special_unary
from .special import float64_forward


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


# ---- torch.special's other Bessel functions --------------------------------------------------
# See Note [Bessel function methods]. Every kernel computes in float64 and rounds to the input's
# dtype; only i0e and i1e have derivatives in PyTorch (the rest record no node at all, so their
# results never require grad).


def _exp_scaled(scaled, sign, at_inf):
    """scaled(x) * exp(sign |x|), with exp taken in x's dtype so that float32 overflows (or
    underflows) where PyTorch's float32 kernel does; +inf gives `at_inf`."""

    def fwd(xp, x):
        flat = np.asarray(x).ravel()
        with np.errstate(all="ignore"):
            out = scaled(flat.astype(np.float64)).astype(flat.dtype) * np.exp(sign * np.abs(flat))
        out[flat == np.inf] = at_inf
        return out.reshape(x.shape)

    return fwd


def _i1e_grad(g, x, out):
    # d/dx (I1(x) e^-|x|) = i0e(x) - i1e(x) (sgn(x) + 1/x), and 1/2 at 0
    ratio = (out / x).masked_fill(x == 0, 0.0)
    return g * (apply(I0E, (x,)) - out * x.sgn() - ratio).masked_fill(x == 0, 0.5)


I0E = defop(
    "special_i0e",
    float64_forward(bessel.i0e),
    # d/dx (I0(x) e^-|x|) = I1(x) e^-|x| - sgn(x) I0(x) e^-|x|
    {"x": lambda g, x, out: g * (apply(I1E, (x,)) - x.sgn() * out)},
    promote=promotion.real_kernel("i0e_cpu", promotion.floating, half=True),
    node="SpecialI0EBackward0",
)
I1E = defop(
    "special_i1e",
    float64_forward(bessel.i1e),
    {"x": _i1e_grad},
    promote=promotion.real_kernel("i1e_cpu", promotion.floating, half=True),
    node="SpecialI1EBackward0",
)

# name -> forward of the rows without a derivative (PyTorch records no node for them)
_UNDIFFERENTIATED = {
    "airy_ai": float64_forward(bessel.airy_ai),
    "bessel_j0": float64_forward(bessel.bessel_j0),
    "bessel_j1": float64_forward(bessel.bessel_j1),
    "bessel_y0": float64_forward(bessel.bessel_y0),
    "bessel_y1": float64_forward(bessel.bessel_y1),
    "modified_bessel_i0": _exp_scaled(bessel.i0e, 1, np.nan),
    "modified_bessel_i1": _exp_scaled(bessel.i1e, 1, np.nan),
    "modified_bessel_k0": _exp_scaled(bessel.k0e, -1, 0.0),
    "modified_bessel_k1": _exp_scaled(bessel.k1e, -1, 0.0),
    "scaled_modified_bessel_k0": float64_forward(bessel.k0e),
    "scaled_modified_bessel_k1": float64_forward(bessel.k1e),
    "spherical_bessel_j0": float64_forward(bessel.spherical_j0),
}
BESSEL_ROWS = {
    name: defop(
        "special_" + name, fwd, promote=promotion.real_kernel(name + "_cpu", promotion.floating)
    )
    for name, fwd in _UNDIFFERENTIATED.items()
}


# PyTorch's schemas name these inputs `x`, the rest `input`: its argument errors say which
_NAMED_X = {
    "airy_ai",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
}


i0e = special_unary("i0e", I0E)
i1e = special_unary("i1e", I1E)
BESSEL_FUNCTIONS = {
    name: special_unary(name, op, "x" if name in _NAMED_X else "input")
    for name, op in BESSEL_ROWS.items()
}
