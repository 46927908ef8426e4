"""`torch.backends.cudnn`: settable flags; cuDNN itself is never available here."""

from __future__ import annotations

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
fp32_precision = "none"


def is_available() -> bool:
    """Matches `torch.backends.cudnn.is_available` on a build without CUDA."""
    return False


def version():
    return None
