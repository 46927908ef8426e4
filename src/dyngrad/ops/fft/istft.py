"""`torch.istft`: the inverse of stft, made as PyTorch makes it (so its nodes are PyTorch's):
each frame's spectrum transformed back (c2r, or c2c for `return_complex`), multiplied by the
window, the frames overlap-added (unfold_backward, UnfoldBackwardBackward0), the padding of
`center` trimmed, and the sum divided by the overlap-added squared window."""

from __future__ import annotations

import warnings

from ...runtime.warn_always import warn_once
from ..creation.factories import ones
from ..elementwise.complex_numbers import view_as_complex, view_as_real
from ..nn.conv import constant_pad
from ..shape.indexing import narrow
from ..shape.rearrange import UNFOLD_BACKWARD
from ..shape.reshaping import squeeze, transpose, unsqueeze, wrap_dim
from ..table.record import apply
from ..table.surface import public
from .transforms import fft_c2c, fft_c2r

__all__ = ["istft"]

_NO_WINDOW = (
    "A window was not provided. A rectangular window will be applied.Please provide the same "
    "window used by stft to make the inversion lossless.To suppress this warning and use a "
    "rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`."
)
_PADDED = (
    "The length of signal is shorter than the length parameter. Result is being padded with "
    "zeros in the tail. Please check your center and hop_length settings."
)


def _overlap_add(frames, length: int, n_fft: int, hop_length: int):
    # (channels, frames, n_fft) summed into (channels, length): the adjoint of unfold
    shape = (frames.shape[0], length)
    attrs = {"shape": shape, "dim": 1, "size": n_fft, "step": hop_length}
    return apply(UNFOLD_BACKWARD, (frames,), attrs)


def _describe(self, n_fft, hop, win, window, center, normalized, onesided, length, rc):
    shown = "None" if window is None else f"{window.type()}{{{list(window.shape)}}}"
    return (
        f"istft(CPU{self.dtype._legacy}Type{list(self.shape)}, n_fft={n_fft}, "
        f"hop_length={hop}, win_length={win}, window={shown}, center={int(center)}, "
        f"normalized={int(normalized)}, onesided={'None' if onesided is None else int(onesided)}"
        f", length={length}, return_complex={int(rc)}) "
    )


def _check(self, input, n_fft, hop_length, win_length, window, onesided, prefix) -> bool:
    """PyTorch's checks in its order; whether the input is onesided."""
    if input.numel() == 0:
        raise RuntimeError(f"{prefix}: input tensor cannot be empty.")
    if input.dim() not in (3, 4):
        raise RuntimeError(
            f"{prefix}: expected a tensor with 3 or 4 dimensions of complex dtype, but got "
            f"{input.dim() - 1}"
        )
    fft_size = input.shape[-3]
    onesided = fft_size != n_fft if onesided is None else onesided
    if onesided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(
            f"{prefix}: expected the frequency dimension (3rd to the last) of the input tensor "
            f"to match n_fft / 2 + 1 when onesided=True, but got {fft_size}"
        )
    if not onesided and n_fft != fft_size:
        raise RuntimeError(
            f"{prefix}: expected the frequency dimension (3rd to the last) of the input tensor "
            f"to match n_fft when onesided=False, but got {fft_size}"
        )
    if not 0 < hop_length <= win_length:
        raise RuntimeError(f"{prefix}: expected 0 < hop_length <= win_length")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"{prefix}: expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        raise RuntimeError(
            f"{prefix}: Invalid window shape. window has to be 1D and length of `win_length`"
        )
    return onesided


@public
def istft(
    input,
    n_fft: int,
    hop_length=None,
    win_length=None,
    window=None,
    center: bool = True,
    normalized: bool = False,
    onesided=None,
    length=None,
    return_complex: bool = False,
):
    """Matches `torch.istft`: the signal whose stft is `input` (frequencies, frames), by
    overlap-add of the frames' inverse transforms."""
    self = input
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if not self.is_complex():
        raise RuntimeError(
            "istft requires a complex-valued input tensor matching the output from stft with "
            "return_complex=True."
        )
    if window is None and warn_once("istft without a window"):
        warnings.warn(_NO_WINDOW, UserWarning, stacklevel=2)
    pairs = view_as_real(self)
    prefix = _describe(
        self,
        n_fft,
        hop_length,
        win_length,
        window,
        center,
        normalized,
        onesided,
        length,
        return_complex,
    )
    for d in (-2, -3):  # PyTorch reads the frames' and frequencies' sizes first
        wrap_dim(d, pairs.dim())
    n_frames, signal_length = pairs.shape[-2], n_fft + hop_length * (pairs.shape[-2] - 1)
    onesided = _check(self, pairs, n_fft, hop_length, win_length, window, onesided, prefix)
    if window is None:
        window = ones(win_length, dtype=pairs.dtype)
    if win_length != n_fft:  # the window centred in n_fft zeros
        left = (n_fft - win_length) // 2
        window = constant_pad(window, (left, n_fft - win_length - left))
    if pairs.dim() == 3:
        pairs = unsqueeze(pairs, 0)
    frames = view_as_complex(transpose(pairs, 1, 2))  # (channels, frames, frequencies)
    kind = 1 if normalized else 2  # See Note [FFT normalization]: by_root_n, by_n
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = fft_c2c(frames, (2,), kind, False)
    else:
        if window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not onesided:
            frames = narrow(frames, -1, 0, n_fft // 2 + 1)
        frames = fft_c2r(frames, (2,), kind, n_fft)
    y = _overlap_add(frames * window.view(1, 1, n_fft), signal_length, n_fft, hop_length)
    squares = window.pow(2).expand(1, n_frames, n_fft)
    envelope = _overlap_add(squares, signal_length, n_fft, hop_length)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = -(n_fft // 2) if center else signal_length
    y = y[:, start:end]
    envelope = envelope[:, start:end]
    if bool((envelope.abs().min() < 1e-11).item()):
        raise RuntimeError(f"{prefix}window overlap add min: 1")
    y = y / envelope
    if self.dim() == 2:
        y = squeeze(y, 0)
    if end > signal_length:
        if warn_once("istft length"):
            warnings.warn(_PADDED, UserWarning, stacklevel=2)
        y = constant_pad(y, (0, end - signal_length))
    return y
