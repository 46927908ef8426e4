"""The n-dimensional transforms (fftn, ifftn, rfftn, irfftn, hfftn, ihfftn) and their
two-dimensional forms, made of the op table's kernels as PyTorch's are: fftn of a real tensor
is a complex copy (ToCopyBackward0) then FftC2CBackward0; hfftn and ihfftn chain a c2c over all
but the last dim with the last dim's c2r or r2c."""

from __future__ import annotations

from ..elementwise.complex_numbers import conj, conj_physical
from ..table.record import autocast_entry
from .arguments import check_size, normalization, promote, resize, shape_and_dims
from .transforms import fft_c2c, fft_c2r, fft_r2c

__all__ = ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
__all__ += ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"]

_LAST_TWO = (-2, -1)


def _c2c(input, s, dim, norm, forward: bool):
    shape, dims = shape_and_dims(input, s, dim)
    x = resize(promote(input, require_complex=True), dims, shape)
    return fft_c2c(x, dims, normalization(norm, forward), forward)


def _real_input(name: str, input, s, dim):
    if input.is_complex() and name == "rfftn":  # (ihfftn's dtype check comes last)
        raise RuntimeError(
            f"{name} expects a real-valued input tensor, but got {input.dtype._legacy}"
        )
    shape, dims = shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    if input.is_complex():
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {input.dtype._legacy}")
    return resize(promote(input), dims, shape), dims


def _hermitian_input(name: str, input, s, dim):
    """The half-spectrum trimmed or padded to (..., n // 2 + 1), its dims and n, the output's
    size along the last dim (by default 2 * (size - 1))."""
    shape, dims = shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    if s is None or _last(s) == -1:
        last_size = 2 * (input._data.shape[dims[-1]] - 1)
    else:
        last_size = shape[-1]
    check_size(last_size)
    shape[-1] = last_size // 2 + 1
    return resize(promote(input, require_complex=True), dims, shape), dims, last_size


def _last(s):
    return s if isinstance(s, int) else list(s)[-1]


@autocast_entry("fft_fftn")  # See Note [Autocast policy]
def fftn(input, s=None, dim=None, norm=None):
    """Matches `torch.fft.fftn`: the n-dimensional discrete Fourier transform."""
    return _c2c(input, s, dim, norm, True)


@autocast_entry("fft_ifftn")  # See Note [Autocast policy]
def ifftn(input, s=None, dim=None, norm=None):
    """Matches `torch.fft.ifftn`: the n-dimensional inverse discrete Fourier transform."""
    return _c2c(input, s, dim, norm, False)


@autocast_entry("fft_rfftn")  # See Note [Autocast policy]
def rfftn(input, s=None, dim=None, norm=None):
    """Matches `torch.fft.rfftn`: the n-dimensional FFT of a real signal, the last dim
    onesided."""
    x, dims = _real_input("rfftn", input, s, dim)
    return fft_r2c(x, dims, normalization(norm, True), True)


@autocast_entry("fft_irfftn")  # See Note [Autocast policy]
def irfftn(input, s=None, dim=None, norm=None):
    """Matches `torch.fft.irfftn`: the inverse of rfftn."""
    x, dims, last_size = _hermitian_input("irfftn", input, s, dim)
    return fft_c2r(x, dims, normalization(norm, False), last_size)


def hfftn(input, s=None, dim=None, norm=None):
    """Matches `torch.fft.hfftn`: the n-dimensional FFT of a Hermitian-symmetric signal given
    by its half along the last dim."""
    x, dims, last_size = _hermitian_input("hfftn", input, s, dim)
    kind = normalization(norm, True)
    if len(dims) > 1:
        x = fft_c2c(x, dims[:-1], kind, True)
    return fft_c2r(conj(x), dims[-1:], kind, last_size)


def ihfftn(input, s=None, dim=None, norm=None):
    """Matches `torch.fft.ihfftn`: the inverse of hfftn."""
    x, dims = _real_input("ihfftn", input, s, dim)
    kind = normalization(norm, False)
    out = fft_r2c(x, dims[-1:], kind, True)
    if len(dims) == 1:
        return conj(out)
    return fft_c2c(conj_physical(out), dims[:-1], kind, False)


@autocast_entry("fft_fft2")  # See Note [Autocast policy]
def fft2(input, s=None, dim=_LAST_TWO, norm=None):
    """Matches `torch.fft.fft2`: fftn over the last two dims."""
    return fftn(input, s, dim, norm)


@autocast_entry("fft_ifft2")  # See Note [Autocast policy]
def ifft2(input, s=None, dim=_LAST_TWO, norm=None):
    """Matches `torch.fft.ifft2`: ifftn over the last two dims."""
    return ifftn(input, s, dim, norm)


@autocast_entry("fft_rfft2")  # See Note [Autocast policy]
def rfft2(input, s=None, dim=_LAST_TWO, norm=None):
    """Matches `torch.fft.rfft2`: rfftn over the last two dims."""
    return rfftn(input, s, dim, norm)


@autocast_entry("fft_irfft2")  # See Note [Autocast policy]
def irfft2(input, s=None, dim=_LAST_TWO, norm=None):
    """Matches `torch.fft.irfft2`: irfftn over the last two dims."""
    return irfftn(input, s, dim, norm)


def hfft2(input, s=None, dim=_LAST_TWO, norm=None):
    """Matches `torch.fft.hfft2`: hfftn over the last two dims."""
    return hfftn(input, s, dim, norm)


def ihfft2(input, s=None, dim=_LAST_TWO, norm=None):
    """Matches `torch.fft.ihfft2`: ihfftn over the last two dims."""
    return ihfftn(input, s, dim, norm)
