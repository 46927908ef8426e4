"""Elementwise number functions: gcd, lcm, heaviside, copysign, nextafter, frexp, ldexp,
float_power and logcumsumexp, with PyTorch's nodes where they are differentiable."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...return_types import frexp as _frexp_result
from ...runtime import dtypes
from ..reduction.cumulative import _reverse_cumsum
from ..table import promotion
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .arithmetic import pow

_LN2 = float(np.log(2.0))


def _integers(kernel: str):
    # gcd and lcm have integer kernels only: neither bool nor float
    def promote(arrays, args):
        arrays = promotion.binary(arrays, args)
        for a in arrays:
            if hasattr(a, "dtype") and a.dtype.kind not in "iu":
                raise promotion._missing_kernel(kernel, a.dtype)
        return arrays

    return promote


GCD = defop("gcd", lambda xp, x, y: xp.gcd(x, y), promote=_integers("gcd_cpu"))
LCM = defop("lcm", lambda xp, x, y: xp.lcm(x, y), promote=_integers("lcm_cpu"))


def _no_derivative(error, text):
    # PyTorch records these ops with a node whose backward refuses: the error comes at backward
    def formula(g):
        raise error(text)

    return formula


# torch 2.13's derivative: the result moves with x (one ulp off it), not with y
NEXTAFTER = defop(
    "nextafter",
    lambda xp, x, y: xp.nextafter(x, y),
    {"x": lambda g: g, "y": lambda g: g * 0},
    promote=promotion.floating_kernel("nextafter_cpu"),
)


def _heaviside_fwd(xp, x, values):
    return xp.where(x == 0, values, (x > 0).astype(x.dtype)).astype(x.dtype)


_HEAVISIDE_GRAD = _no_derivative(RuntimeError, "derivative for aten::heaviside is not implemented")
HEAVISIDE = defop(
    "heaviside",
    _heaviside_fwd,
    {"x": _HEAVISIDE_GRAD, "values": _HEAVISIDE_GRAD},
    node="torch::autograd::NotImplemented",
)


def _copysign_x_grad(g, x, out):
    # d copysign(x, y)/dx = out / x: +-1, and 0 where x is 0 (as PyTorch)
    return g * (out / x).masked_fill(x == 0, 0.0)


COPYSIGN = defop(
    "copysign",
    lambda xp, x, y: xp.copysign(x, y),
    {"x": _copysign_x_grad, "y": lambda g: g * 0.0},
    promote=promotion.binary_floating,
)
COPYSIGN_SCALAR = defop(
    "copysign_scalar",
    lambda xp, x, *, other: xp.copysign(x, xp.asarray(other, dtype=x.dtype)),
    {"x": _copysign_x_grad},
    promote=promotion.floating,
    node="CopysignBackward1",
)


def _logcumsumexp_fwd(xp, x, *, dim):
    if x.ndim == 0:
        return x.copy()
    return np.logaddexp.accumulate(x, axis=dim)


def _logcumsumexp_grad(g, x, out, dim):
    # d out_j / d x_i = exp(x_i - out_j) for i <= j
    return x.exp() * _reverse_cumsum(g * (-out).exp(), dim)


LOGCUMSUMEXP = defop(
    "logcumsumexp",
    _logcumsumexp_fwd,
    {"x": _logcumsumexp_grad},
    promote=promotion.floating,
)


def _ldexp_x_grad(g, y):
    # d(x 2^y)/dx = 2^y; PyTorch computes 2^y in y's dtype, so an integer y < 0 gives 0
    scale = pow(2.0, y)
    return g * (scale if y.is_floating_point() else scale.masked_fill(y < 0, 0.0))


# d(x 2^y)/dy = x 2^y ln 2
LDEXP = defop(
    "ldexp",
    lambda xp, x, y: x * xp.exp2(y),
    {"x": _ldexp_x_grad, "y": lambda g, out: g * out * _LN2},
    promote=promotion.binary_floating,
)


def _binary(name, op, *, inplace: bool = True):
    def fn(input, other):
        return apply(op, (input, other))

    fn.__name__, fn.__doc__ = name, f"Matches `torch.{name}`."
    public(fn, name=name)
    if inplace:

        def fn_(self, other):
            return apply_inplace(op, (self, other), name=name + "_")

        fn_.__name__ = name + "_"
        public(fn_, name=name + "_", function=False)
    return fn


gcd = _binary("gcd", GCD)
lcm = _binary("lcm", LCM)
nextafter = _binary("nextafter", NEXTAFTER)
public(lambda input, other: apply_inplace(GCD, (input, other), name="gcd_"), name="gcd_")
public(lambda input, other: apply_inplace(LCM, (input, other), name="lcm_"), name="lcm_")


def _check_heaviside(input, values):
    if input.dtype != values.dtype:
        raise RuntimeError(
            "heaviside is not yet implemented for tensors with different dtypes.\n"
            f"Got {input.dtype} and {values.dtype}; convert one with .to()"
        )


@public
def heaviside(input, values):
    """Matches `torch.heaviside`: 0 below zero, 1 above, `values` at zero."""
    _check_heaviside(input, values)
    return apply(HEAVISIDE, (input, values))


@public(function=False)
def heaviside_(self, values):
    _check_heaviside(self, values)
    return apply_inplace(HEAVISIDE, (self, values), name="heaviside_")


@public
def copysign(input, other):
    """Matches `torch.copysign`: |input| with the sign of `other` (a tensor or a number)."""
    if isinstance(other, Tensor):
        return apply(COPYSIGN, (input, other))
    return apply(COPYSIGN_SCALAR, (input,), {"other": other})


@public(function=False)
def copysign_(self, other):
    if isinstance(other, Tensor):
        return apply_inplace(COPYSIGN, (self, other), name="copysign_")
    return apply_inplace(COPYSIGN_SCALAR, (self,), {"other": other}, name="copysign_")


@public
def logcumsumexp(input, dim):
    """Matches `torch.logcumsumexp`: log of the running sum of exp along `dim`."""
    return apply(LOGCUMSUMEXP, (input,), {"dim": dim % max(input.dim(), 1)})


@public
def frexp(input):
    """Matches `torch.frexp`: (mantissa, exponent) with input = mantissa * 2**exponent."""
    if not input.is_floating_point():
        raise RuntimeError(f"torch.frexp() only supports floating-point dtypes\nGot {input.dtype}.")
    mantissa, exponent = np.frexp(input._data)
    return _frexp_result(Tensor._wrap(mantissa), Tensor._wrap(exponent.astype(np.int32)))


@public
def ldexp(input, other):
    """Matches `torch.ldexp`: input * 2**other."""
    return apply(LDEXP, (input, other))


@public
def ldexp_(self, other):
    return apply_inplace(LDEXP, (self, other), name="ldexp_")


def _to_double(x):
    if isinstance(x, Tensor):
        return x.to(dtypes.complex128 if x.is_complex() else dtypes.float64)
    return x


@public
def float_power(input, exponent):
    """Matches `torch.float_power`: pow computed in double precision."""
    if not isinstance(input, Tensor):
        return pow(input, _to_double(exponent))
    return pow(_to_double(input), _to_double(exponent))


@public(function=False)
def float_power_(self, exponent):
    if self.dtype != dtypes.float64:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {self.dtype._legacy} but the operation's "
            "result requires dtype Double"
        )
    return self.pow_(_to_double(exponent))
