"""`dyngrad.backends`: PyTorch's backend switches (`cudnn`, `cuda`, `mps`, ...) on a CPU build.

The flags can be set, as scripts do for reproducibility (`cudnn.deterministic = True`);
dyngrad's NumPy ops are deterministic whatever they say.
"""

from __future__ import annotations

from . import cuda, cudnn, mha, mkl, mkldnn, mps, openmp

__all__ = ["cuda", "cudnn", "mha", "mkl", "mkldnn", "mps", "openmp"]
