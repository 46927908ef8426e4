"""Local response normalization across channels: `LocalResponseNorm` (built from ops, as
PyTorch's) and the legacy `CrossMapLRN2d` (a custom Function, as PyTorch's)."""

from __future__ import annotations

from ...autograd.function import Function
from ...ops.creation.factories import zeros
from ...ops.shape.joining import cat, stack
from ..functional_pool import local_response_norm
from .module import Module

__all__ = ["CrossMapLRN2d", "LocalResponseNorm"]


class LocalResponseNorm(Module):
    """Matches `torch.nn.LocalResponseNorm`."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


def _channel_sums(square, size: int):
    """PyTorch's legacy running sum of squares over channels, kept exactly as it runs.

    # Note [CrossMapLRN2d's window]
    # The sum starts with channels [0, pre_pad) and slides by adding channel c + pre_pad - 1
    # and dropping channel c - pre_pad only once c > pre_pad, so channel 0 is never dropped:
    # for more channels than the window the sums are not the centred window that its own
    # backward assumes. PyTorch computes both that way; dyngrad matches its numbers.
    """
    channels = square.shape[1]
    pre_pad = int((size - 1) / 2 + 1)
    current = square[:, : min(pre_pad, channels)].sum(1)
    sums = [current]
    for c in range(1, channels):
        if c < channels - pre_pad + 1:
            current = current + square[:, c + pre_pad - 1]
        if c > pre_pad:
            current = current - square[:, c - pre_pad]
        sums.append(current)
    return stack(sums, 1)


class CrossMapLRN2d(Function):
    """PyTorch's `CrossMapLRN2d` Function: its forward and its own backward formula."""

    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        scale = _channel_sums(input * input, size) * (alpha / size) + k
        output = input * scale.pow(-beta)
        ctx.size, ctx.alpha, ctx.beta = size, alpha, beta
        ctx.save_for_backward(input, output, scale)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output, scale = ctx.saved_tensors
        size, channels = ctx.size, input.shape[1]
        # ratio = g * out / scale, placed at channel offset `before` of a (C + size - 1) stack;
        # each channel subtracts the sum of the ratio over its `size` slots
        before = int(size - (size - 1) / 2)
        ratio = grad_output * output / scale
        n, _, h, w = input.shape
        padded = cat(
            [
                zeros(n, before, h, w, dtype=input.dtype, device=input.device),
                ratio,
                zeros(n, size - 1 - before, h, w, dtype=input.dtype, device=input.device),
            ],
            1,
        )
        window = stack([padded[:, c : c + size].sum(1) for c in range(channels)], 1)
        cache = 2 * ctx.alpha * ctx.beta / size
        return scale.pow(-ctx.beta) * grad_output - cache * input * window, None, None, None, None


# the Function keeps PyTorch's name (its node is CrossMapLRN2dBackward); the Module below
# takes the public name, as PyTorch's modules do
_cross_map_lrn2d = CrossMapLRN2d


class CrossMapLRN2d(Module):
    """Matches `torch.nn.CrossMapLRN2d` (its CrossMapLRN2dBackward and legacy channel sums;
    see Note [CrossMapLRN2d's window])."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return _cross_map_lrn2d.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
