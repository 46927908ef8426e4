"""The one-dimensional transforms: fft, ifft, rfft, irfft, hfft, ihfft, each made of one
kernel of the op table as PyTorch's are (so their nodes are PyTorch's: `ifft` of a real tensor
is FftR2CBackward0 under ConjBackward0, `n=` adds SliceBackward0 or ConstantPadNdBackward0)."""

from __future__ import annotations

from ..elementwise.complex_numbers import conj
from ..table.record import autocast_entry
from .arguments import check_size, normalization, promote, resize, wrap
from .transforms import fft_c2c, fft_c2r, fft_r2c

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]


def _c2c(input, n, dim, norm, forward: bool):
    d = wrap(dim, input)
    size = check_size(input._data.shape[d] if n is None else n)
    x = input if n is None else resize(input, (d,), (size,))
    return fft_c2c(x, (d,), normalization(norm, forward), forward)


def _r2c(name: str, input, n, dim, norm, forward: bool, onesided: bool):
    if input.is_complex():
        raise RuntimeError(f"{name} expects a real input tensor, but got {input.dtype._legacy}")
    x = promote(input)
    d = wrap(dim, x)
    size = check_size(x._data.shape[d] if n is None else n)
    if n is not None:
        x = resize(x, (d,), (size,))
    out = fft_r2c(x, (d,), normalization(norm, forward), onesided)
    return out if forward else conj(out)  # the kernel only transforms forward


def _c2r(input, n, dim, norm, forward: bool):
    x = promote(input, require_complex=True)
    d = wrap(dim, x)
    size = check_size(2 * (x._data.shape[d] - 1) if n is None else n)
    if n is not None:
        x = resize(x, (d,), (size // 2 + 1,))
    if forward:  # the kernel only transforms backward: hfft(x) is c2r of conj(x)
        x = conj(x)
    return fft_c2r(x, (d,), normalization(norm, forward), size)


@autocast_entry("fft_fft")  # See Note [Autocast policy]
def fft(input, n=None, dim=-1, norm=None):
    """Matches `torch.fft.fft`: the one-dimensional discrete Fourier transform."""
    if input.is_complex():
        return _c2c(input, n, dim, norm, True)
    return _r2c("fft", input, n, dim, norm, True, False)


@autocast_entry("fft_ifft")  # See Note [Autocast policy]
def ifft(input, n=None, dim=-1, norm=None):
    """Matches `torch.fft.ifft`: the one-dimensional inverse discrete Fourier transform."""
    if input.is_complex():
        return _c2c(input, n, dim, norm, False)
    return _r2c("ifft", input, n, dim, norm, False, False)


@autocast_entry("fft_rfft")  # See Note [Autocast policy]
def rfft(input, n=None, dim=-1, norm=None):
    """Matches `torch.fft.rfft`: the FFT of a real signal, its n // 2 + 1 non-negative
    frequencies."""
    return _r2c("rfft", input, n, dim, norm, True, True)


@autocast_entry("fft_irfft")  # See Note [Autocast policy]
def irfft(input, n=None, dim=-1, norm=None):
    """Matches `torch.fft.irfft`: the inverse of rfft, a real signal of n points (by default
    2 * (size - 1))."""
    return _c2r(input, n, dim, norm, False)


@autocast_entry("fft_hfft")  # See Note [Autocast policy]
def hfft(input, n=None, dim=-1, norm=None):
    """Matches `torch.fft.hfft`: the FFT of a Hermitian-symmetric signal given by its first
    half, a real tensor."""
    return _c2r(input, n, dim, norm, True)


@autocast_entry("fft_ihfft")  # See Note [Autocast policy]
def ihfft(input, n=None, dim=-1, norm=None):
    """Matches `torch.fft.ihfft`: the inverse of hfft, the first half of a Hermitian
    spectrum."""
    return _r2c("ihfft", input, n, dim, norm, False, True)
