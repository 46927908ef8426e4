"""`torch.backends.mkldnn`: oneDNN's settable flags; dyngrad never calls oneDNN.

`is_available()` is False (PyTorch's CPU build says True), so scripts that would convert
tensors to the mkldnn layout keep the ordinary one, the only one dyngrad has.
"""

from __future__ import annotations

enabled = True
deterministic = False
fp32_precision = "none"


def is_available() -> bool:
    return False
