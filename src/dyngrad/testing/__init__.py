"""`torch.testing`: assert_close (and the deprecated assert_allclose) and make_tensor."""

from __future__ import annotations

from .comparison import assert_allclose, assert_close
from .creation import make_tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]
