"""The array layer: the only code that names NumPy (and, later, CuPy) for computation.

Ops receive `xp`, the array namespace of their inputs, so one op runs on any device.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import dtypes
from .allocator import tune_malloc
from .device import CPU, device
from .dtypes import dtype

__all__ = [
    "np",
    "namespace",
    "device_of",
    "dtypes",
    "dtype",
    "device",
    "CPU",
    "quiet_floating_point",
]

# Note [Array namespaces]
# An array's type picks its namespace. NumPy is always there; CuPy registers itself here when
# the cuda backend is imported, so ops never import either library themselves.
_NAMESPACES: dict[type, object] = {np.ndarray: np}
_DEVICES: dict[type, device] = {np.ndarray: CPU}

# Note [Floating-point warnings]
# PyTorch computes log(-1), 0/0 and sqrt at 0's gradient silently (nan, inf); NumPy warns.
# A backward pass runs inside one `quiet_floating_point()` block (~1 µs per backward). A block
# per forward op would cost as much per op, so forward ops rely on this filter instead: NumPy
# attributes its warnings to the calling frame, so it silences exactly those raised in
# dyngrad's code. A filter is weaker: `simplefilter("always")`, or importing dyngrad inside
# `catch_warnings()` (as pytest's collection does), lets them through.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"dyngrad(\.|$)")


MALLOC_TUNED = tune_malloc()  # See Note [Allocator]


try:  # np.errstate(all="ignore") is these two calls behind two Python frames and an __init__
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
except ImportError:  # another NumPy: its public errstate
    _extobj_contextvar = None


class _Quiet:
    __slots__ = ("_token",)

    def __enter__(self):
        self._token = _extobj_contextvar.set(_make_extobj(all="ignore"))

    def __exit__(self, *exc_info):
        _extobj_contextvar.reset(self._token)


def quiet_floating_point():
    """A context in which NumPy computes nan and inf silently, as PyTorch does."""
    return np.errstate(all="ignore") if _extobj_contextvar is None else _Quiet()


def namespace(array) -> object:
    """The array namespace (numpy, cupy) that computes on `array`."""
    return _NAMESPACES.get(type(array), np)


def device_of(array) -> device:
    return _DEVICES.get(type(array), CPU)
