"""`torch.stft`: the short-time Fourier transform, made as PyTorch makes it (so its nodes are
PyTorch's): the signal padded by n_fft // 2 at both ends (`center`), cut into overlapping
frames by as_strided, each frame multiplied by the window and transformed by the r2c (or, for
complex input or window, c2c) kernel, then transposed to (..., frequencies, frames)."""

from __future__ import annotations

import warnings

from ...runtime import dtypes
from ...runtime.warn_always import warn_once
from ..creation.factories import ones
from ..elementwise.complex_numbers import view_as_real
from ..nn.conv import constant_pad
from ..nn.pad import index_pad
from ..shape.inplace_views import squeeze_, transpose_
from ..shape.joining import cat
from ..shape.reshaping import unsqueeze, view
from ..shape.storage import as_strided
from ..table.record import autocast_entry
from ..table.surface import public
from .arguments import normalization
from .transforms import fft_c2c, fft_r2c

__all__ = ["stft"]

_NO_WINDOW = (
    "A window was not provided. A rectangular window will be applied,which is known to cause "
    "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
    "recommended to reduce spectral leakage.To suppress this warning and use a rectangular "
    "window, explicitly set `window=torch.ones(n_fft, device=<device>)`."
)
_REAL_RETURN = (
    "stft with return_complex=False is deprecated. In a future pytorch release, stft will "
    "return complex tensors for all inputs, and return_complex=False will raise an error.\n"
    "Note: you can still call torch.view_as_real on the complex output to recover the old "
    "return format."
)
_NO_RETURN_COMPLEX = (
    "stft requires the return_complex parameter be given for real inputs, and will further "
    "require that return_complex=True in a future PyTorch release."
)


def _pad_signal(input, pad: int, pad_mode: str):
    # torch.functional.stft: the signal viewed as (batch, 1, length) for F.pad, then back
    signal_dim = input.dim()
    shape = [1] * (3 - signal_dim) + list(input.shape)
    x = view(input, *shape)
    if pad_mode == "constant":
        x = constant_pad(x, (pad, pad))
    elif pad_mode == "circular":
        x = cat([x[..., x.shape[-1] - pad :], x, x[..., :pad]], -1)
    elif pad_mode in ("reflect", "replicate"):
        if pad_mode == "reflect" and pad >= shape[-1]:
            raise RuntimeError(
                "Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({pad}, {pad}) at dimension 2 of input {shape}"
            )
        x = index_pad(x, (pad, pad), pad_mode)
    else:
        raise NotImplementedError(f"Unrecognised padding mode {pad_mode}")
    return view(x, *x.shape[-signal_dim:])


def _describe(input, n_fft, hop_length, win_length, window, normalized, onesided, complex_out):
    # PyTorch's prefix of stft's errors: the call as it reached the kernel
    shown = "None" if window is None else f"{window.type()}{{{list(window.shape)}}}"
    return (
        f"stft({input.type()}{list(input.shape)}, n_fft={n_fft}, hop_length={hop_length}, "
        f"win_length={win_length}, window={shown}, normalized={int(normalized)}, "
        f"onesided={'None' if onesided is None else int(onesided)}, "
        f"return_complex={int(complex_out)}, align_to_window=None) : "
    )


def _frames(input, n_fft: int, hop_length: int):
    batch, length = input.shape
    n_frames = 1 + (length - n_fft) // hop_length
    step = input.stride()
    return as_strided(input, (batch, n_frames, n_fft), (step[0], hop_length * step[1], step[1]))


@public
@autocast_entry("stft")  # See Note [Autocast policy]
def stft(
    input,
    n_fft: int,
    hop_length=None,
    win_length=None,
    window=None,
    center: bool = True,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided=None,
    return_complex=None,
    align_to_window=None,
):
    """Matches `torch.stft`: the frames' spectra, (..., n_fft // 2 + 1, frames) for a real
    signal (`align_to_window` is not supported)."""
    if align_to_window:
        raise NotImplementedError("dyngrad's stft does not support align_to_window=True")
    if return_complex is None:
        if not (input.is_complex() or (window is not None and window.is_complex())):
            raise RuntimeError(_NO_RETURN_COMPLEX)
        return_complex = True
    if center:
        input = _pad_signal(input, n_fft // 2, pad_mode)
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    prefix = _describe(
        input, n_fft, hop_length, win_length, window, normalized, onesided, return_complex
    )
    if input.dim() not in (1, 2):
        raise RuntimeError(f"{prefix}expected a 1D or 2D tensor")
    x = unsqueeze(input, 0) if input.dim() == 1 else input
    length = x.shape[1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"{prefix}expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop_length <= 0:
        raise RuntimeError(f"{prefix}expected hop_length > 0, but got hop_length={hop_length}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(
            f"{prefix}expected 0 < win_length <= n_fft, but got win_length={win_length}"
        )
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        raise RuntimeError(
            f"{prefix}expected a 1D window tensor of size equal to win_length={win_length}, but "
            f"got window with size {list(window.shape)}"
        )
    if not return_complex and warn_once("stft return_complex=False"):
        warnings.warn(_REAL_RETURN, UserWarning, stacklevel=2)
    if window is None:
        if warn_once("stft without a window"):
            warnings.warn(_NO_WINDOW, UserWarning, stacklevel=2)
        if win_length < n_fft:  # a rectangle of win_length ones (else no window at all)
            window = ones(win_length, dtype=x.real.dtype if x.is_complex() else x.dtype)
    if window is not None and win_length < n_fft:  # the window centred in n_fft zeros
        left = (n_fft - win_length) // 2
        window = constant_pad(window, (left, n_fft - win_length - left))
    frames = _frames(x, n_fft, hop_length)
    if window is not None:
        frames = frames * window
    kind = normalization("ortho" if normalized else "backward", True)
    if frames.is_complex():
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = fft_c2c(frames, (2,), kind, True)
    else:
        if frames.dtype not in (dtypes.float32, dtypes.float64):
            raise RuntimeError(f"Unsupported dtype {frames.dtype._legacy}")
        out = fft_r2c(frames, (2,), kind, True if onesided is None else onesided)
    transpose_(out, 1, 2)
    if input.dim() == 1:
        squeeze_(out, 0)
    return out if return_complex else view_as_real(out)
