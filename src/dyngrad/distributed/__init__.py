"""`torch.distributed`, not built yet: `is_available()` is False and the rest raises.

Scripts that ask `dist.is_available()` or `dist.is_initialized()` take their single-process
path; calls that need a process group raise a clear error instead of an AttributeError.
"""

from __future__ import annotations

from enum import Enum

__all__ = [
    "ReduceOp",
    "is_available",
    "is_initialized",
    "is_gloo_available",
    "is_mpi_available",
    "is_nccl_available",
    "is_torchelastic_launched",
]


def is_available() -> bool:
    """Whether dyngrad's torch.distributed exists: False until it is built."""
    return False


def is_initialized() -> bool:
    return False


def is_torchelastic_launched() -> bool:
    return False


is_gloo_available = is_mpi_available = is_nccl_available = is_available


class ReduceOp(Enum):
    """The reduction names of `torch.distributed.ReduceOp`, so default arguments resolve."""

    SUM = "sum"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"
    AVG = "avg"
    PREMUL_SUM = "premul_sum"


def _not_supported(name: str):
    def call(*args, **kwargs):
        raise NotImplementedError(
            f"torch.distributed.{name} is not supported by dyngrad yet "
            "(torch.distributed.is_available() is False)"
        )

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"`torch.distributed.{name}`: raises until dyngrad's distributed exists."
    return call


init_process_group = _not_supported("init_process_group")
destroy_process_group = _not_supported("destroy_process_group")
new_group = _not_supported("new_group")
get_rank = _not_supported("get_rank")
get_world_size = _not_supported("get_world_size")
get_backend = _not_supported("get_backend")
barrier = _not_supported("barrier")
broadcast = _not_supported("broadcast")
broadcast_object_list = _not_supported("broadcast_object_list")
all_reduce = _not_supported("all_reduce")
reduce = _not_supported("reduce")
all_gather = _not_supported("all_gather")
all_gather_object = _not_supported("all_gather_object")
gather = _not_supported("gather")
scatter = _not_supported("scatter")
reduce_scatter = _not_supported("reduce_scatter")
all_to_all = _not_supported("all_to_all")
send = _not_supported("send")
recv = _not_supported("recv")
isend = _not_supported("isend")
irecv = _not_supported("irecv")
