"""The three discrete Fourier transforms of the op table: complex-to-complex, real-to-complex
and complex-to-real (PyTorch's `_fft_c2c`, `_fft_r2c`, `_fft_c2r`), on NumPy's pocketfft.

# Note [FFT normalization]
# PyTorch's kernels take `normalization` as a number: 0 scales by nothing, 1 by 1/sqrt(n), 2 by
# 1/n (n the product of the transformed sizes), whatever the direction; the public functions
# turn `norm=` into it. The adjoint of an unscaled forward DFT is the unscaled inverse DFT, so
# each transform's backward is the opposite direction with the same `normalization`.
# numpy.fft says the same with `norm=` relative to the direction of the call, hence two maps.
"""

from __future__ import annotations

import numpy as np

from ...runtime import namespace
from ..elementwise.complex_numbers import real
from ..nn.conv import constant_pad
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public

__all__ = ["fft_c2c", "fft_r2c", "fft_c2r"]

_FORWARD = ("backward", "ortho", "forward")  # numpy's norm= of a forward call, by normalization
_INVERSE = ("forward", "ortho", "backward")  # ... and of an inverse call


def _c2c(xp, x, *, dim, normalization, forward):
    if not dim:
        return x.copy()
    if forward:
        out = xp.fft.fftn(x, axes=dim, norm=_FORWARD[normalization])
    else:
        out = xp.fft.ifftn(x, axes=dim, norm=_INVERSE[normalization])
    return out.astype(_complex_of(x.dtype), copy=False)


def _r2c(xp, x, *, dim, normalization, onesided):
    transform = xp.fft.rfftn if onesided else xp.fft.fftn
    out = transform(x, axes=dim, norm=_FORWARD[normalization])
    return out.astype(_complex_of(x.dtype), copy=False)


def _c2r(xp, x, *, dim, normalization, last_dim_size):
    sizes = [x.shape[d] for d in dim[:-1]] + [last_dim_size]
    out = xp.fft.irfftn(x, s=sizes, axes=dim, norm=_INVERSE[normalization])
    return out.astype(x.real.dtype, copy=False)


def _complex_of(dtype):
    return np.complex64 if dtype in (np.float32, np.complex64) else np.complex128


def _r2c_grad(g, x_shape, dim, normalization, onesided):
    # a onesided transform is the full one with its upper half dropped: the dropped half's
    # gradient is zero, then the full transform's adjoint, then the real part (x was real)
    last = dim[-1]
    missing = x_shape[last] - g.shape[last]
    if onesided and missing > 0:
        g = constant_pad(g, (0, 0) * (g.dim() - 1 - last) + (0, missing))
    return real(fft_c2c(g, dim, normalization, False))


def _c2r_grad(g, dim, normalization):
    # c2r fills the upper half by conjugate symmetry from the lower: the adjoint is the
    # onesided r2c, with the gradient of each mirrored entry (1 .. n - onesided length) added
    # to its twin, i.e. doubled
    grad = fft_r2c(g, dim, normalization, True)
    last = dim[-1]
    doubled = g.shape[last] - grad.shape[last]
    if doubled > 0:
        xp = namespace(g._data)
        weight = xp.ones(grad.shape[last], g._data.dtype)
        weight[1 : 1 + doubled] = 2
        weight = weight.reshape((-1,) + (1,) * (grad.dim() - 1 - last))
        grad = grad * type(g)._wrap(weight)
    return grad


FFT_C2C = defop(
    "fft_c2c",
    _c2c,
    {"x": lambda g, dim, normalization, forward: fft_c2c(g, dim, normalization, not forward)},
    node="FftC2CBackward0",
)
FFT_R2C = defop("fft_r2c", _r2c, {"x": _r2c_grad}, node="FftR2CBackward0")
FFT_C2R = defop("fft_c2r", _c2r, {"x": _c2r_grad}, node="FftC2RBackward0")


@public(name="_fft_c2c", method=False)
def fft_c2c(input, dim, normalization: int, forward: bool):
    """Matches `torch._fft_c2c`: the complex DFT over `dim` (See Note [FFT normalization])."""
    attrs = {"dim": tuple(dim), "normalization": int(normalization), "forward": bool(forward)}
    return apply(FFT_C2C, (input,), attrs)


@public(name="_fft_r2c", method=False)
def fft_r2c(input, dim, normalization: int, onesided: bool):
    """Matches `torch._fft_r2c`: the forward DFT of a real tensor (half of the last dim's
    output when `onesided`)."""
    attrs = {"dim": tuple(dim), "normalization": int(normalization), "onesided": bool(onesided)}
    return apply(FFT_R2C, (input,), attrs)


@public(name="_fft_c2r", method=False)
def fft_c2r(input, dim, normalization: int, last_dim_size: int):
    """Matches `torch._fft_c2r`: the inverse DFT of a Hermitian half-spectrum, a real tensor
    with `last_dim_size` elements along the last of `dim`."""
    attrs = {"dim": tuple(dim), "normalization": int(normalization)}
    attrs["last_dim_size"] = int(last_dim_size)
    return apply(FFT_C2R, (input,), attrs)
