"""`torch.signal.windows`: the SciPy-style windows, as PyTorch builds them.

Each window is PyTorch's composition of tensor ops (a `linspace` of the sample positions, then
`cos`/`sin`/`exp`/`i0`) in the requested dtype, so float32 windows round as PyTorch's do and
`requires_grad=True` gives the same (non-leaf) graph.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import dyngrad

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]


def _checked(name: str, M: int, dtype, layout):
    dtype = dyngrad.get_default_dtype() if dtype is None else dtype
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not dyngrad.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (dyngrad.float32, dyngrad.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _trivial(M: int, factory: dict):
    # no samples, or one (which every window below except two sets to 1)
    return dyngrad.empty((0,), **factory) if M == 0 else dyngrad.ones((1,), **factory)


def _positions(first, step, M: int, factory: dict):
    # the samples first, first + 1, ... scaled by `step`, with PyTorch's rounding
    return dyngrad.linspace(start=first * step, end=(first + (M - 1)) * step, steps=M, **factory)


def exponential(
    M, *, center=None, tau=1.0, sym=True, dtype=None, layout=dyngrad.strided, device=None,
    requires_grad=False,
):  # fmt: skip
    """Matches `torch.signal.windows.exponential` (the Poisson window)."""
    dtype = _checked("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    factory = {"dtype": dtype, "device": device, "requires_grad": requires_grad}
    if M == 0:
        return _trivial(M, factory)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = _positions(-center, 1 / tau, M, factory)
    return dyngrad.exp(-dyngrad.abs(k))


def cosine(M, *, sym=True, dtype=None, layout=dyngrad.strided, device=None, requires_grad=False):
    """Matches `torch.signal.windows.cosine` (the sine window, SciPy's definition)."""
    dtype = _checked("cosine", M, dtype, layout)
    factory = {"dtype": dtype, "device": device, "requires_grad": requires_grad}
    if M == 0:
        return _trivial(M, factory)
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    return dyngrad.sin(_positions(0.5, step, M, factory))


def gaussian(
    M, *, std=1.0, sym=True, dtype=None, layout=dyngrad.strided, device=None, requires_grad=False
):
    """Matches `torch.signal.windows.gaussian`."""
    dtype = _checked("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    factory = {"dtype": dtype, "device": device, "requires_grad": requires_grad}
    if M == 0:
        return _trivial(M, factory)
    first = -(M if not sym and M > 1 else M - 1) / 2.0
    step = 1 / (std * math.sqrt(2))
    k = _positions(first, step, M, factory)
    return dyngrad.exp(-(k**2))


def kaiser(
    M, *, beta=12.0, sym=True, dtype=None, layout=dyngrad.strided, device=None,
    requires_grad=False,
):  # fmt: skip
    """Matches `torch.signal.windows.kaiser`: I0(beta sqrt(1 - x^2)) / I0(beta)."""
    dtype = _checked("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    factory = {"dtype": dtype, "device": device, "requires_grad": requires_grad}
    if M <= 1:
        return _trivial(M, factory)
    beta = dyngrad.tensor(beta, dtype=dtype, device=device)  # in the window's dtype: no NaN
    step = 2.0 * beta / (M if not sym else M - 1)
    end = dyngrad.minimum(beta, -beta + (M - 1) * step)
    k = dyngrad.linspace(start=-beta, end=end, steps=M, **factory)
    return dyngrad.i0(dyngrad.sqrt(beta * beta - dyngrad.pow(k, 2))) / dyngrad.i0(beta)


def general_cosine(
    M, *, a, sym=True, dtype=None, layout=dyngrad.strided, device=None, requires_grad=False
):
    """Matches `torch.signal.windows.general_cosine`: sum_i (-1)^i a_i cos(i z)."""
    dtype = _checked("general_cosine", M, dtype, layout)
    factory = {"dtype": dtype, "device": device, "requires_grad": requires_grad}
    if M <= 1:
        return _trivial(M, factory)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    z = _positions(0, 2 * math.pi / (M if not sym else M - 1), M, factory)
    coefficients = dyngrad.tensor([(-1) ** i * w for i, w in enumerate(a)], **factory)
    i = dyngrad.arange(
        coefficients.shape[0], dtype=dtype, device=device, requires_grad=requires_grad
    )
    return (coefficients.unsqueeze(-1) * dyngrad.cos(i.unsqueeze(-1) * z)).sum(0)


def general_hamming(
    M, *, alpha=0.54, sym=True, dtype=None, layout=dyngrad.strided, device=None,
    requires_grad=False,
):  # fmt: skip
    """Matches `torch.signal.windows.general_hamming`: alpha - (1 - alpha) cos(z)."""
    return general_cosine(
        M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
        requires_grad=requires_grad,
    )  # fmt: skip


def hamming(M, *, sym=True, dtype=None, layout=dyngrad.strided, device=None, requires_grad=False):
    """Matches `torch.signal.windows.hamming`."""
    return general_hamming(
        M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def hann(M, *, sym=True, dtype=None, layout=dyngrad.strided, device=None, requires_grad=False):
    """Matches `torch.signal.windows.hann`."""
    return general_hamming(
        M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
        requires_grad=requires_grad,
    )  # fmt: skip


def blackman(M, *, sym=True, dtype=None, layout=dyngrad.strided, device=None, requires_grad=False):
    """Matches `torch.signal.windows.blackman`."""
    dtype = _checked("blackman", M, dtype, layout)
    return general_cosine(
        M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
        requires_grad=requires_grad,
    )  # fmt: skip


def bartlett(M, *, sym=True, dtype=None, layout=dyngrad.strided, device=None, requires_grad=False):
    """Matches `torch.signal.windows.bartlett` (the triangle reaching 0 at both ends)."""
    dtype = _checked("bartlett", M, dtype, layout)
    factory = {"dtype": dtype, "device": device, "requires_grad": requires_grad}
    if M <= 1:
        return _trivial(M, factory)
    step = 2 / (M if not sym else M - 1)
    return 1 - dyngrad.abs(dyngrad.linspace(start=-1, end=-1 + (M - 1) * step, steps=M, **factory))


def nuttall(M, *, sym=True, dtype=None, layout=dyngrad.strided, device=None, requires_grad=False):
    """Matches `torch.signal.windows.nuttall` (Nuttall's minimum 4-term Blackman-Harris)."""
    return general_cosine(
        M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype, layout=layout,
        device=device, requires_grad=requires_grad,
    )  # fmt: skip
