"""The array layer: the only code that names NumPy (and, later, CuPy) for computation.

Ops receive `xp`, the array namespace of their inputs, so one op runs on any device.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .device import CPU, device
from .dtypes import dtype

__all__ = ["np", "namespace", "device_of", "dtypes", "dtype", "device", "CPU"]

# Note [Array namespaces]
# An array's type picks its namespace. NumPy is always there; CuPy registers itself here when
# the cuda backend is imported, so ops never import either library themselves.
_NAMESPACES: dict[type, object] = {np.ndarray: np}
_DEVICES: dict[type, device] = {np.ndarray: CPU}


def namespace(array) -> object:
    """The array namespace (numpy, cupy) that computes on `array`."""
    return _NAMESPACES.get(type(array), np)


def device_of(array) -> device:
    return _DEVICES.get(type(array), CPU)
