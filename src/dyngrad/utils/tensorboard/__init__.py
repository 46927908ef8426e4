"""`torch.utils.tensorboard`: `SummaryWriter` over the `tensorboard` package (an optional
extra, as in PyTorch: `pip install tensorboard`)."""

from __future__ import annotations

try:
    import tensorboard  # noqa: F401 - PyTorch checks for it when this module loads
except ImportError as exc:
    raise ImportError(
        "TensorBoard logging requires TensorBoard version 1.15 or above "
        "(pip install tensorboard, or dyngrad's extra: pip install 'dyngrad[tensorboard]')"
    ) from exc

from .writer import SummaryWriter

__all__ = ["SummaryWriter"]
