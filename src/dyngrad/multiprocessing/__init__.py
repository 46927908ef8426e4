"""`torch.multiprocessing`: Python's multiprocessing, re-exported as PyTorch does, with
`spawn`/`start_processes` and the sharing-strategy settings.

A tensor sent through a Queue or a Pipe (or as a spawned Process's argument) is first moved
to shared memory, as PyTorch does, and the receiver maps the same memory: a change either
side makes is seen by the other (See Note [Shared memory] in _settings.py). A view is sent as
a copy of its values, where PyTorch would share its base.
"""

from __future__ import annotations

import mmap
import multiprocessing
import pickle
import sys
from multiprocessing import *  # noqa: F403 - PyTorch re-exports the whole module
from multiprocessing import reduction as _reduction

import numpy as np

from .._settings import adopt_shared
from .._tensor import Tensor
from ..nn.parameter import Parameter
from .spawn import (
    ENV_VAR_PARALLEL_START,
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__

if sys.platform in ("darwin", "win32"):
    _sharing_strategy = "file_system"
    _all_sharing_strategies = {"file_system"}
else:
    _sharing_strategy = "file_descriptor"
    _all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy: str) -> None:
    """Matches `torch.multiprocessing.set_sharing_strategy` (recorded only: dyngrad sends
    tensors by value, see the module's docstring)."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(
            f"invalid sharing strategy {new_strategy!r}, expected one of {_all_sharing_strategies}"
        )
    _sharing_strategy = new_strategy


def get_sharing_strategy() -> str:
    """Matches `torch.multiprocessing.get_sharing_strategy`."""
    return _sharing_strategy


def get_all_sharing_strategies() -> set:
    """Matches `torch.multiprocessing.get_all_sharing_strategies`."""
    return _all_sharing_strategies


def _reduce_tensor(tensor: Tensor):
    # autograd history cannot follow a tensor into another process; torch refuses rather
    # than silently sending a leaf that has lost its graph
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, "
            "since autograd does not support crossing process boundaries.  "
            "If you just want to transfer the data, call detach() on the tensor "
            "before serializing (e.g., putting it on the queue)."
        )
    tensor.share_memory_()  # as PyTorch's reducer moves the sender's storage
    shared = getattr(tensor, "_shared_memory", None)
    if shared is None or shared[1] is None or tensor._data is not shared[0]:
        return tensor.__reduce_ex__(pickle.HIGHEST_PROTOCOL)  # a view, or no memfd: a copy
    array = shared[0]
    layout = (array.nbytes, array.dtype.str, array.shape)
    return _rebuild_shared, (
        type(tensor),
        _reduction.DupFd(shared[1]),
        layout,
        tensor.requires_grad,
    )


def _rebuild_shared(cls, dup_fd, layout, requires_grad):
    # the receiving side: map the sender's memory (See Note [Shared memory])
    nbytes, dtype, shape = layout
    fd = dup_fd.detach()
    array = np.frombuffer(mmap.mmap(fd, nbytes), dtype=dtype).reshape(shape)
    tensor = Tensor._wrap(array)
    adopt_shared(tensor, array, fd)
    if cls is Parameter:
        tensor = Parameter(tensor, requires_grad)
        adopt_shared(tensor, array, None)  # the descriptor stays with the first wrapper's
        return tensor
    return tensor.requires_grad_(requires_grad) if requires_grad else tensor


def init_reductions() -> None:
    """Matches `torch.multiprocessing.init_reductions`: how tensors cross a Queue or Pipe."""
    for cls in (Tensor, Parameter):
        _reduction.register(cls, _reduce_tensor)


init_reductions()

__all__ += [
    "ENV_VAR_PARALLEL_START",
    "ProcessContext",
    "ProcessException",
    "ProcessExitedException",
    "ProcessRaisedException",
    "SpawnContext",
    "spawn",
    "start_processes",
]
