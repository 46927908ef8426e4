"""`dyngrad.backends`: PyTorch's backend switches (`cudnn`, `mps`, `cuda`) on a CPU build.

The flags can be set, as scripts do for reproducibility (`cudnn.deterministic = True`);
dyngrad's NumPy ops are deterministic whatever they say.
"""

from __future__ import annotations

from types import SimpleNamespace

from . import cudnn, mps

__all__ = ["cudnn", "mps", "cuda"]

# torch.backends.cuda: only its settable flags, since there is no CUDA build to describe.
cuda = SimpleNamespace(
    is_built=lambda: False,
    matmul=SimpleNamespace(
        allow_tf32=False,
        allow_fp16_reduced_precision_reduction=True,
        allow_bf16_reduced_precision_reduction=True,
    ),
)
