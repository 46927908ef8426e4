"""`torch.nn.attention`: choosing the kernels of `scaled_dot_product_attention`.

On CPU PyTorch chooses between two of them, its fused flash kernel and the math form
(See Note [Flash attention on CPU]); the other backends' flags are kept, as PyTorch keeps
them, and select nothing here.
"""

from __future__ import annotations

import contextlib
import enum

from ...backends import cuda as _cuda

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """Matches `torch.nn.attention.SDPBackend`."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __repr__(self) -> str:
        return f"<SDPBackend.{self.name}: {self.value}>"

    def __str__(self) -> str:
        return f"SDPBackend.{self.name}"


# each backend's flag in torch.backends.cuda (OVERRIDEABLE has none there)
_FLAGS = {
    SDPBackend.MATH: "math",
    SDPBackend.FLASH_ATTENTION: "flash",
    SDPBackend.EFFICIENT_ATTENTION: "mem_efficient",
    SDPBackend.CUDNN_ATTENTION: "cudnn",
}
_DEFAULT_PRIORITY = [
    SDPBackend.FLASH_ATTENTION,
    SDPBackend.EFFICIENT_ATTENTION,
    SDPBackend.MATH,
    SDPBackend.CUDNN_ATTENTION,
    SDPBackend.OVERRIDEABLE,
]
_priority = list(_DEFAULT_PRIORITY)


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Matches `torch.nn.attention.sdpa_kernel`: only `backends` may run inside the block;
    the flags (and the priority order) are restored after it. On CPU the order does not
    change the choice, as in PyTorch: the flash kernel where it applies, else math."""
    global _priority
    if isinstance(backends, SDPBackend):
        backends = [backends]
    if not isinstance(backends, (list, tuple, set)) or not all(
        isinstance(b, SDPBackend) for b in backends
    ):
        raise AssertionError(
            "Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
            f"got {type(backends).__name__}"
        )
    before, before_priority = dict(_cuda._sdp), list(_priority)
    for backend, flag in _FLAGS.items():
        _cuda._sdp[flag] = backend in backends
    if set_priority:
        chosen = list(dict.fromkeys(backends))
        _priority = chosen + [b for b in _DEFAULT_PRIORITY if b not in chosen]
    try:
        yield {}
    finally:
        _cuda._sdp.update(before)
        _priority = before_priority
