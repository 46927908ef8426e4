"""`torch.distributed` on MPI (mpi4py): process groups, collectives, and the launcher.

Start N ranks with `mpiexec -n N python script.py`, or with torchrun's interface:
`python -m dyngrad.distributed.run --nproc-per-node N script.py`. Without mpi4py
(`pip install 'dyngrad[distributed]'`) `is_available()` is False and calls that need a
process group raise.
"""

from __future__ import annotations

from . import module_states, mpi, reducer  # noqa: F401 - DDP reaches them as attributes
from .collectives import (
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    all_to_all_single,
    barrier,
    broadcast,
    gather,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
)
from .names import (
    Backend,
    DistBackendError,
    DistError,
    DistNetworkError,
    DistStoreError,
    ReduceOp,
    default_pg_nccl_timeout,
    default_pg_timeout,
    supports_complex,
)
from .objects import (
    all_gather_object,
    broadcast_object_list,
    gather_object,
    scatter_object_list,
)
from .point_to_point import P2POp, batch_isend_irecv, irecv, isend, recv, send
from .process_group import (
    GroupMember,
    ProcessGroup,
    Work,
    destroy_process_group,
    group,
    init_process_group,
    is_initialized,
    new_group,
)
from .ranks import (
    get_backend,
    get_global_rank,
    get_group_rank,
    get_node_local_rank,
    get_pg_count,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    is_torchelastic_launched,
)

__all__ = [
    "is_available",
    "is_gloo_available",
    "is_mpi_available",
    "is_nccl_available",
    "is_ucc_available",
    "is_xccl_available",
    "is_backend_available",
    "is_initialized",
    "is_torchelastic_launched",
    "init_process_group",
    "destroy_process_group",
    "new_group",
    "get_rank",
    "get_world_size",
    "get_backend",
    "get_group_rank",
    "get_global_rank",
    "get_process_group_ranks",
    "get_pg_count",
    "get_node_local_rank",
    "ProcessGroup",
    "Work",
    "GroupMember",
    "group",
    "ReduceOp",
    "Backend",
    "DistError",
    "DistBackendError",
    "DistNetworkError",
    "DistStoreError",
    "default_pg_timeout",
    "default_pg_nccl_timeout",
    "supports_complex",
    "all_reduce",
    "reduce",
    "broadcast",
    "all_gather",
    "all_gather_into_tensor",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "gather",
    "scatter",
    "all_to_all_single",
    "barrier",
    "send",
    "recv",
    "isend",
    "irecv",
    "P2POp",
    "batch_isend_irecv",
    "all_gather_object",
    "broadcast_object_list",
    "gather_object",
    "scatter_object_list",
]


def is_available() -> bool:
    """Matches `torch.distributed.is_available`: True when mpi4py is installed."""
    return mpi.available()


def is_gloo_available() -> bool:
    """Whether `backend="gloo"` works: dyngrad carries it out on MPI."""
    return mpi.available()


is_mpi_available = is_gloo_available


def is_nccl_available() -> bool:
    return False


is_ucc_available = is_xccl_available = is_nccl_available


def is_backend_available(backend: str) -> bool:
    """Matches `torch.distributed.is_backend_available`."""
    return Backend(backend) in (Backend.GLOO, Backend.MPI) and mpi.available()
