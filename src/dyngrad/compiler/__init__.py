"""`torch.compiler`: reset, disable, is_compiling (and is_dynamo_compiling), as PyTorch's."""

from __future__ import annotations

from .._dynamo.eval_frame import disable, is_compiling, reset

__all__ = ["reset", "disable", "is_compiling", "is_dynamo_compiling"]


def is_dynamo_compiling() -> bool:
    """Matches `torch.compiler.is_dynamo_compiling`."""
    return is_compiling()
