"""`torch.onnx`: dyngrad cannot export ONNX graphs; `export` says so clearly."""

from __future__ import annotations

__all__ = ["export", "is_in_onnx_export"]


def export(*args, **kwargs):
    """`torch.onnx.export`: not supported by dyngrad; it raises."""
    raise NotImplementedError(
        "torch.onnx.export is not supported by dyngrad: export the model with PyTorch "
        "(the state_dict loads there as it is)"
    )


def is_in_onnx_export() -> bool:
    """Matches `torch.onnx.is_in_onnx_export`: never, since dyngrad does not export."""
    return False
