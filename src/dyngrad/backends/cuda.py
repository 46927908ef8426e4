"""`torch.backends.cuda`: the settable flags scripts touch; there is no CUDA build here."""

from __future__ import annotations

import contextlib
import warnings
from types import SimpleNamespace

matmul = SimpleNamespace(
    allow_tf32=False,
    fp32_precision="none",
    allow_fp16_reduced_precision_reduction=True,
    allow_bf16_reduced_precision_reduction=True,
)

# Which scaled_dot_product_attention kernels may run: on CPU the flash kernel (where it
# applies) or the math form, as PyTorch chooses (See Note [Flash attention on CPU]).
_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def is_built() -> bool:
    return False


def flash_sdp_enabled() -> bool:
    return _sdp["flash"]


def enable_flash_sdp(enabled: bool) -> None:
    _sdp["flash"] = bool(enabled)


def mem_efficient_sdp_enabled() -> bool:
    return _sdp["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    _sdp["mem_efficient"] = bool(enabled)


def math_sdp_enabled() -> bool:
    return _sdp["math"]


def enable_math_sdp(enabled: bool) -> None:
    _sdp["math"] = bool(enabled)


def cudnn_sdp_enabled() -> bool:
    return _sdp["cudnn"]


def enable_cudnn_sdp(enabled: bool) -> None:
    _sdp["cudnn"] = bool(enabled)


def is_flash_attention_available() -> bool:
    return False


@contextlib.contextmanager
def sdp_kernel(
    enable_flash: bool = True,
    enable_math: bool = True,
    enable_mem_efficient: bool = True,
    enable_cudnn: bool = True,
):
    """Matches the deprecated `torch.backends.cuda.sdp_kernel` (warns): the four flags set
    inside the block, restored after it."""
    warnings.warn(
        "`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager "
        "will be removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context "
        "manager, with updated signature.",
        FutureWarning,
        stacklevel=3,
    )
    before = dict(_sdp)
    _sdp.update(
        flash=bool(enable_flash),
        math=bool(enable_math),
        mem_efficient=bool(enable_mem_efficient),
        cudnn=bool(enable_cudnn),
    )
    try:
        yield {}
    finally:
        _sdp.update(before)
