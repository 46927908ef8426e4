"""`Tensor.__dlpack__` and `Tensor.__dlpack_device__`: other libraries (NumPy, PyTorch, ...)
take a dyngrad tensor's memory without a copy through the DLPack protocol, NumPy's export."""

from __future__ import annotations

from ..table.surface import public

__all__ = ["dlpack", "dlpack_device"]


@public(name="__dlpack__", function=False)
def dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """Matches `Tensor.__dlpack__` (cpu tensors)."""
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    data = self._data
    kwargs = {"stream": stream, "dl_device": dl_device, "copy": copy}
    if max_version is not None:
        kwargs["max_version"] = max_version
    elif not data.flags.writeable:  # a legacy capsule cannot say read-only: export a copy
        data = data.copy()
    return data.__dlpack__(**kwargs)


@public(name="__dlpack_device__", function=False)
def dlpack_device(self) -> tuple:
    """Matches `Tensor.__dlpack_device__`: (kDLCPU, 0)."""
    return self._data.__dlpack_device__()
