"""`torch.multiprocessing`: Python's multiprocessing, re-exported as PyTorch does, with
`spawn`/`start_processes` and the sharing-strategy settings.

Tensors cross a Queue or a Pipe by pickling, so they arrive with the same values, dtype and
requires_grad. dyngrad departs from torch in one way: the receiver gets a copy of the array,
not a view of shared memory, so a child's in-place change is not seen by the parent (torch
moves the storage to shared memory; NumPy arrays have no such storage to move).
"""

from __future__ import annotations

import multiprocessing
import pickle
import sys
from multiprocessing import *  # noqa: F403 - PyTorch re-exports the whole module
from multiprocessing import reduction as _reduction

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
    return tensor.__reduce_ex__(pickle.HIGHEST_PROTOCOL)


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
