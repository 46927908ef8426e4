"""`torch.fft`: discrete Fourier transforms (on NumPy's pocketfft), their sample frequencies
and shifts. Every transform takes `out=` as PyTorch's do."""

from __future__ import annotations

import functools as _functools

from .._tensor import Tensor as _Tensor
from ..ops.fft import n_dim as _n_dim
from ..ops.fft import one_dim as _one_dim
from ..ops.fft.frequencies import fftfreq as _fftfreq
from ..ops.fft.frequencies import fftshift as _fftshift
from ..ops.fft.frequencies import ifftshift as _ifftshift
from ..ops.fft.frequencies import rfftfreq as _rfftfreq
from ..ops.table.out import write_into as _write_into

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "hfft2",
    "hfftn",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "ihfft2",
    "ihfftn",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]

# With out=, PyTorch refuses inputs that require grad naming the kernel that writes `out`;
# where it writes through a conjugate instead (ifft or ihfft of a real tensor) it refuses
# nothing and dyngrad records the copy (None)
_C2C, _R2C, _C2R = "_fft_c2c", "_fft_r2c", "_fft_c2r"
_KERNEL = {
    "fft": lambda x: _C2C if x.is_complex() else _R2C,
    "ifft": lambda x: _C2C if x.is_complex() else None,
    "rfft": lambda x: _R2C,
    "ihfft": lambda x: None,
    "irfft": lambda x: _C2R,
    "hfft": lambda x: _C2R,
}
for _name in ("fftn", "ifftn", "fft2", "ifft2", "ihfftn", "ihfft2"):
    _KERNEL[_name] = lambda x: _C2C
for _name in ("rfftn", "rfft2"):
    _KERNEL[_name] = lambda x: _R2C
for _name in ("irfftn", "irfft2", "hfftn", "hfft2"):
    _KERNEL[_name] = lambda x: _C2R


def _expect_tensor(name: str, input) -> None:
    if not isinstance(input, _Tensor):
        raise TypeError(
            f"fft_{name}(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )


def _with_out(fn, kernel):
    @_functools.wraps(fn)
    def transform(input, *args, out=None, **kwargs):
        _expect_tensor(fn.__name__, input)
        if out is None:
            return fn(input, *args, **kwargs)
        return _write_into(kernel(input), out, lambda: fn(input, *args, **kwargs), (input,))

    return transform


for _name, _kernel in _KERNEL.items():
    _module = _one_dim if hasattr(_one_dim, _name) else _n_dim
    globals()[_name] = _with_out(getattr(_module, _name), _kernel)
del _name, _kernel, _module


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Matches `torch.fft.fftfreq`: [0, 1, ..., -(n // 2), ..., -1] / (d n)."""
    call = _functools.partial(_fftfreq, n, d, dtype=dtype, device=device)
    if out is None:
        return call(requires_grad=requires_grad)
    return _write_into("fft_fftfreq", out, call, ())


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Matches `torch.fft.rfftfreq`: [0, 1, ..., n // 2] / (d n), rfft's frequencies."""
    call = _functools.partial(_rfftfreq, n, d, dtype=dtype, device=device)
    if out is None:
        return call(requires_grad=requires_grad)
    return _write_into("fft_rfftfreq", out, call, ())


def fftshift(input, dim=None):
    """Matches `torch.fft.fftshift`: the zero-frequency term moved to the centre (a roll)."""
    _expect_tensor("fftshift", input)
    return _fftshift(input, dim)


def ifftshift(input, dim=None):
    """Matches `torch.fft.ifftshift`: the inverse of fftshift."""
    _expect_tensor("ifftshift", input)
    return _ifftshift(input, dim)
