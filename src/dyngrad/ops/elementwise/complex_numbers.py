"""Complex numbers and number predicates: real, imag, view_as_real, view_as_complex, complex,
polar, angle, conj, conj_physical, resolve_conj/neg, is_complex/conj/neg/nonzero/signed,
is_same_size, positive, and Tensor.H / mH / adjoint().

dyngrad has no lazy conjugate or negative bit: `conj` of a complex tensor is a copy
(`is_conj()` is always False), as `torch.conj_physical` is. `real`/`imag` of a complex tensor
are views through `view_as_real`, so their nodes (SelectBackward0) are PyTorch's.

# Note [Complex gradients]
# PyTorch's gradient of a real loss L with respect to a complex z is the conjugate Wirtinger
# derivative, 2 dL/d(conj z): what gradient descent steps along. For an op w = f(z) that makes
# the chain rule  grad_z = conj(df/dz) * grad_w + (df/d(conj z)) * conj(grad_w).  A holomorphic
# op (mul, exp, ...) has df/d(conj z) = 0, so its formula is the real one with its derivative
# conjugated: `g * conjugate(y)` for mul. On real tensors `conjugate` returns its argument, so
# one formula serves both; a non-holomorphic op (abs, sgn, angle) has its own complex formula.
"""

from __future__ import annotations

import builtins
import warnings

import numpy as np

from ..._tensor import Tensor
from ...runtime import dtypes
from ..shape.indexing import select
from ..shape.reshaping import _property, transpose
from ..table import promotion
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public


def _view_as_real_fwd(xp, z):
    # the (real, imag) pairs as a strided view of z's memory: any strides, a 0-d z too
    parts = z.real
    return xp.lib.stride_tricks.as_strided(parts, z.shape + (2,), z.strides + (parts.itemsize,))


def _view_as_complex_fwd(xp, x):
    kind = np.complex64 if x.dtype == np.float32 else np.complex128
    return x.view(kind).reshape(x.shape[:-1])


VIEW_AS_REAL = defop(
    "view_as_real",
    _view_as_real_fwd,
    {"z": lambda g: apply(VIEW_AS_COMPLEX, (g.contiguous(),))},
    view=True,
)
VIEW_AS_COMPLEX = defop(
    "view_as_complex",
    _view_as_complex_fwd,
    {"x": lambda g: apply(VIEW_AS_REAL, (g,))},
    view=True,
)


@public(method=False)
def view_as_real(input):
    """Matches `torch.view_as_real`: a complex tensor's (real, imag) pairs, as a view."""
    if not input.is_complex():
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return apply(VIEW_AS_REAL, (input,))


@public(method=False)
def view_as_complex(input):
    """Matches `torch.view_as_complex`: a view of (..., 2) float pairs as complex numbers."""
    a = input._data
    if a.dtype not in (np.float32, np.float64):
        raise RuntimeError(
            "view_as_complex is only supported for float and double tensors, but got a tensor "
            f"of scalar type: {input.dtype._legacy}"
        )
    if a.ndim == 0 or a.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if a.strides[-1] != a.itemsize:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % (2 * a.itemsize) for s in a.strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    return apply(VIEW_AS_COMPLEX, (input,))


@public
def real(input):
    """Matches `torch.real`: the tensor itself, or a view of the real parts."""
    if not input.is_complex():
        return input
    return select(apply(VIEW_AS_REAL, (input,)), -1, 0)


@public
def imag(input):
    """Matches `torch.imag`: a view of the imaginary parts (complex tensors only)."""
    if not input.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return select(apply(VIEW_AS_REAL, (input,)), -1, 1)


# the Tensor attributes are properties (the functions stay functions)
public(_property(real), name="real", function=False)
public(_property(imag), name="imag", function=False)


def _complex_fwd(xp, re, im):
    out = xp.empty(re.shape, np.complex64 if re.dtype == np.float32 else np.complex128)
    out.real, out.imag = re, im
    return out


def _check_complex_parts(name, real, imag):
    for t in (real, imag):
        if t.dtype not in (dtypes.float32, dtypes.float64, dtypes.float16):
            raise RuntimeError(
                f"Expected both inputs to be Half, Float or Double tensors but got "
                f"{real.dtype._legacy} and {imag.dtype._legacy}"
            )
    if real.dtype != imag.dtype:
        raise RuntimeError(
            f"Expected object of scalar type {real.dtype._legacy} but got scalar type "
            f"{imag.dtype._legacy} for second argument"
        )


COMPLEX = defop(
    "complex",
    lambda xp, re, im: _complex_fwd(xp, *xp.broadcast_arrays(re, im)),
    {"re": lambda g: real(g), "im": lambda g: imag(g)},
)


def _polar_fwd(xp, r, theta):
    r, theta = xp.broadcast_arrays(r, theta)
    return _complex_fwd(xp, r * xp.cos(theta), r * xp.sin(theta))


# PyTorch's polar_backward: with z = r e^{i theta} and g = a + ib,
# gr = Re(conj(g) e^{i theta}) = a cos theta + b sin theta and
# gtheta = Re(conj(g) i z) = r (b cos theta - a sin theta), written on real tensors
POLAR = defop(
    "polar",
    _polar_fwd,
    {
        "r": lambda g, theta: real(g) * theta.cos() + imag(g) * theta.sin(),
        "theta": lambda g, r, theta: r * (imag(g) * theta.cos() - real(g) * theta.sin()),
    },
)


@public(method=False)
def complex(real, imag):
    """Matches `torch.complex`: real + imag * 1j, float inputs of one dtype."""
    _check_complex_parts("complex", real, imag)
    return apply(COMPLEX, (real, imag))


@public(method=False)
def polar(abs, angle):
    """Matches `torch.polar`: abs * (cos(angle) + i sin(angle))."""
    _check_complex_parts("polar", abs, angle)
    return apply(POLAR, (abs, angle))


def _angle_grad(g, x):
    if not x.is_complex():
        return g * 0.0  # piecewise constant
    # d angle / dz, as PyTorch's angle_backward; 0 at z = 0
    return (g * x / (x.abs() ** 2) * 1j).masked_fill(x == 0, 0.0)


ANGLE = defop(
    "angle",
    lambda xp, x: (
        xp.where(xp.isnan(x), x, xp.angle(x)).real.astype(x.real.dtype, copy=False)
        if x.dtype.kind == "c"
        else xp.where(x < 0, np.pi, xp.where(xp.isnan(x), x, 0)).astype(x.dtype, copy=False)
    ),
    {"x": _angle_grad},
    promote=promotion.floating,
)


@public
def angle(input):
    """Matches `torch.angle`: the argument of each element (pi for negative reals)."""
    return apply(ANGLE, (input,))


CONJ_PHYSICAL = defop(
    "conj_physical",
    lambda xp, x: xp.conj(x),
    {"x": lambda g: conj_physical(g)},
)


@public
def conj_physical(input):
    """Matches `torch.conj_physical`: the conjugate, computed (a real tensor is returned)."""
    if not input.is_complex():
        return input
    return apply(CONJ_PHYSICAL, (input,))


@public
def conj_physical_(input):
    """Matches `torch.conj_physical_`: conjugates in place (a real tensor is unchanged)."""
    if not input.is_complex():
        return input
    return apply_inplace(CONJ_PHYSICAL, (input,), name="conj_physical_")


@public
def isreal(input):
    """Matches `torch.isreal`: True where the imaginary part is 0 (everywhere for reals)."""
    if not input.is_complex():
        return input.new_ones(input.shape, dtype=dtypes.bool_)
    return imag(input) == 0


def conjugate(value):
    """The conjugate of a complex tensor, array or number; a real one as it is. Backward
    formulas use it: See Note [Complex gradients]."""
    if type(value) is np.ndarray:  # a formula run on arrays (Note [Array backwards])
        return value.conj() if value.dtype.kind == "c" else value
    if isinstance(value, Tensor):
        return apply(CONJ, (value,)) if value._data.dtype.kind == "c" else value
    if isinstance(value, builtins.complex):  # (NumPy's complex128 scalars too)
        return value.conjugate()
    if isinstance(value, np.generic) and value.dtype.kind == "c":
        return value.conj()
    return value


# torch.conj's node: PyTorch's conjugate is lazy (a view), dyngrad's a copy, but the node and its
# formula are the same
CONJ = defop("conj", lambda xp, x: xp.conj(x), {"x": lambda g: conj(g)})


@public
def conj(input):
    """Matches `torch.conj`; dyngrad computes the conjugate (no lazy conjugate bit)."""
    if not input.is_complex():
        return input
    return apply(CONJ, (input,))


@public
def resolve_conj(input):
    """Matches `torch.resolve_conj`: dyngrad never defers a conjugate, so the tensor itself."""
    return input


@public
def resolve_neg(input):
    """Matches `torch.resolve_neg`: dyngrad never defers a negation, so the tensor itself."""
    return input


@public
def is_conj(input) -> bool:
    """Matches `torch.is_conj`: always False in dyngrad (conjugates are computed)."""
    return False


@public
def is_neg(input) -> bool:
    """Matches `torch.is_neg`: always False in dyngrad (negations are computed)."""
    return False


@public(method=False)
def is_complex(input) -> bool:
    """Matches `torch.is_complex`."""
    return input.is_complex()


@public
def is_nonzero(input) -> bool:
    """Matches `torch.is_nonzero`: the truth of a one-element tensor."""
    return bool(input)


@public
def is_same_size(input, other) -> bool:
    """Matches `torch.is_same_size`."""
    return tuple(input.shape) == tuple(other.shape)


@public
def is_signed(input) -> bool:
    """Matches `torch.is_signed`: whether the dtype holds negative numbers."""
    return input._data.dtype.kind not in "ub"


@public
def positive(input):
    """Matches `torch.positive`: the tensor itself (bool tensors are refused)."""
    if input.dtype == dtypes.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def _mH(self):
    return conj_physical(transpose(self, -2, -1)) if self._data.ndim >= 2 else self.mT


def _H(self):
    ndim = self._data.ndim
    if ndim == 0:
        warnings.warn(
            "Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", stacklevel=2
        )
        return conj_physical(self)
    if ndim != 2:
        hint = " For batches of matrices, consider using tensor.mH" if ndim > 2 else ""
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {ndim}-D tensor.{hint}"
        )
    return conj_physical(transpose(self, 0, 1))


public(_property(_mH), name="mH", function=False)
public(_property(_H), name="H", function=False)
public(lambda self: _mH(self), name="adjoint")
