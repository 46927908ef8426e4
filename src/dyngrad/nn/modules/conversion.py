"""Module's modes and conversions: train/eval, zero_grad, apply, to/float/double/half."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._tensor import Tensor
from ...graph.grad_mode import no_grad
from ...ops.creation.conversion import _parse_to
from ...runtime import dtypes

if TYPE_CHECKING:
    from .module import Module

__all__ = ["ConversionMixin"]


class ConversionMixin:
    """What Module does to all its parameters and buffers, or to all its submodules."""

    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Matches `torch.nn.Module.zero_grad`: drop (or zero) every parameter's `.grad`."""
        for p in self.parameters():
            if p._grad is None:
                continue
            if set_to_none:
                p._grad = None
            else:
                if p._grad._grad_fn is not None:
                    p._grad.detach_()
                else:
                    p._grad.requires_grad_(False)
                p._grad.zero_()

    def apply(self, fn) -> Module:
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn, recurse: bool = True) -> Module:
        if recurse:
            for module in self.children():
                module._apply(fn)
        with no_grad():
            for param in self._parameters.values():
                if param is None:
                    continue
                param.data = fn(param)
                if param._grad is not None:
                    param._grad = Tensor._wrap(fn(param._grad)._data)
            for key, buf in self._buffers.items():
                if buf is not None:
                    self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs) -> Module:
        """Matches `torch.nn.Module.to`: floating parameters and buffers change dtype in place."""

        dtype, device, _, fmt = _parse_to(args, dict(kwargs))
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but "
                f"got desired dtype={dtype}"
            )

        def convert(t):
            out = t
            if dtype is not None and (t.is_floating_point() or t.is_complex()):
                out = t.to(device, dtype) if device is not None else t.to(dtype)
            elif device is not None:
                out = t.to(device)
            if fmt is not None and t.dim() in (4, 5):  # as PyTorch: only images take a layout
                out = out.to(memory_format=fmt)
            return out

        return self._apply(convert)

    def _cast(self, dtype) -> Module:
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self) -> Module:

        return self._cast(dtypes.float32)

    def double(self) -> Module:

        return self._cast(dtypes.float64)

    def half(self) -> Module:

        return self._cast(dtypes.float16)

    def bfloat16(self) -> Module:

        return self._cast(dtypes.bfloat16)

    def cpu(self) -> Module:
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None) -> Module:
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type) -> Module:
        return self._apply(lambda t: t.type(dst_type))

    def share_memory(self) -> Module:
        """Matches `torch.nn.Module.share_memory`: parameters and buffers in shared memory
        (See Note [Shared memory] in _settings.py)."""
        return self._apply(lambda t: t.share_memory_())
