"""`saved_tensors_hooks`, `save_on_cpu` and `disable_saved_tensors_hooks`: how tensors saved for
backward are stored (See Note [Saved tensor hooks] in graph/saved_hooks.py)."""

from __future__ import annotations

import contextlib

from ..graph import saved_hooks
from ..graph.saved_hooks import SavedTensor

__all__ = [
    "saved_tensors_hooks",
    "save_on_cpu",
    "disable_saved_tensors_hooks",
    "SavedTensor",
]


class saved_tensors_hooks:  # noqa: N801 - PyTorch's name
    """Matches `torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook)`.

    Inside it, every tensor an op saves for backward goes through `pack_hook` and the graph
    keeps what it returns; `unpack_hook` gives the tensor back when backward needs it. Nested
    contexts: the innermost pair applies.

        >>> with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 2, lambda t: t / 2):
        ...     y = x * x          # x saved (twice) as 2x
    """

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        saved_hooks.push(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args) -> None:
        saved_hooks.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - PyTorch's name
    """Matches `torch.autograd.graph.save_on_cpu(pin_memory=False, device_type="cuda")`: saved
    tensors are kept on the CPU and moved back to their device for backward.

    On the CPU a tensor is kept as it is; `pin_memory=True` keeps a copy, as PyTorch does where
    no pinned memory exists.
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            return (tensor.device, tensor.detach().cpu().clone())

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Matches `torch.autograd.graph.disable_saved_tensors_hooks(error_message)`: inside it,
    entering `saved_tensors_hooks` raises RuntimeError(error_message); so does entering it
    while hooks are active."""
    state = saved_hooks.state
    previous = state.disabled
    try:
        state.disabled = error_message
        if state.stack:
            raise RuntimeError(error_message)
        yield
    finally:
        state.disabled = previous
