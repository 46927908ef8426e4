"""torch.fft's helpers: the sample frequencies (fftfreq, rfftfreq) and the shifts that put
the zero frequency in the middle (fftshift, ifftshift)."""

from __future__ import annotations

import numpy as np

from ...runtime import dtypes
from ..creation.factories import _leaf, allocate
from ..shape.rearrange import roll
from ..table.arguments import as_int
from .arguments import wrap

__all__ = ["fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _frequency_dtype(name: str, dtype):
    d = dtypes.get_default_dtype() if dtype is None else dtype
    if d._category not in (2, 3):
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    if d._category == 3:  # PyTorch counts with arange, which has no complex kernel
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{d._legacy}'")
    return d


def _frequencies(name, n, d, count, wrap_from, dtype, device, requires_grad):
    kind = _frequency_dtype(name, dtype)
    if count < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {count}: [{count}]")
    # PyTorch counts in integers, then scales by 1 / (n d) in the output dtype (d = 0 gives
    # infinities, not an error)
    steps = np.arange(count, dtype=np.int64)
    steps[wrap_from:] -= n
    with np.errstate(all="ignore"):
        scale = kind.np.type(np.float64(1.0) / np.float64(n * d))
        array = allocate((count,), kind.np, np.empty)
        array[...] = steps.astype(kind.np) * scale
    return _leaf(array, requires_grad, device)


def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """[0, 1, ..., -(n // 2), ..., -1] / (d n), as `torch.fft.fftfreq`."""
    n = as_int(n)
    return _frequencies("fftfreq", n, d, n, (n + 1) // 2, dtype, device, requires_grad)


def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """[0, 1, ..., n // 2] / (d n), as `torch.fft.rfftfreq`."""
    n = as_int(n)
    count = int(n / 2) + 1  # C's division, towards zero: rfftfreq(-3) is empty
    return _frequencies("rfftfreq", n, d, count, count, dtype, device, requires_grad)


def _shift(input, dim, sign: int):
    ndim = input._data.ndim
    if dim is None:
        dims = list(range(ndim))
    else:
        dims = [wrap(d, input) for d in ((dim,) if isinstance(dim, int) else dim)]
    sizes = input._data.shape
    # fftshift rolls by n // 2, ifftshift by (n + 1) // 2: its inverse for odd n
    shifts = [(sizes[d] + (sign < 0)) // 2 for d in dims]
    return roll(input, shifts, dims)


def fftshift(input, dim=None):
    """Matches `torch.fft.fftshift`: the zero-frequency term moved to the centre (a roll)."""
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):
    """Matches `torch.fft.ifftshift`: the inverse of fftshift."""
    return _shift(input, dim, -1)
