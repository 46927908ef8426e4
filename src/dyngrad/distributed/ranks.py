"""Ranks and groups asked about: this process's rank and the world size, rank translation
between a group and the world, and the group a collective runs on."""

from __future__ import annotations

import os
import warnings

from .names import Backend
from .process_group import GroupMember, ProcessGroup, default_group, world

__all__ = [
    "get_rank",
    "get_world_size",
    "get_backend",
    "get_group_rank",
    "get_global_rank",
    "get_process_group_ranks",
    "get_pg_count",
    "get_node_local_rank",
    "is_torchelastic_launched",
    "resolve",
    "group_rank_of",
]


def is_torchelastic_launched() -> bool:
    """Matches `torch.distributed.is_torchelastic_launched` (`dyngrad.distributed.run` too)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def get_rank(group: ProcessGroup | None = None) -> int:
    """Matches `torch.distributed.get_rank` (-1 outside `group`)."""
    if group == GroupMember.NON_GROUP_MEMBER:
        return -1
    default = default_group()
    if group is None or group is default:
        return default.rank()
    return get_group_rank(group, default.rank())


def get_world_size(group: ProcessGroup | None = None) -> int:
    """Matches `torch.distributed.get_world_size` (-1 outside `group`)."""
    if group == GroupMember.NON_GROUP_MEMBER:
        return -1
    return (default_group() if group is None else group).size()


def get_backend(group: ProcessGroup | None = None) -> str:
    """Matches `torch.distributed.get_backend`: the name the group was made with."""
    pg = group or default_group()
    if pg == GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    return Backend(pg.backend)


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    """Matches `torch.distributed.get_group_rank`."""
    if group is world.default:
        return global_rank
    if group not in world.group_ranks:
        raise ValueError(
            f"Group {group} is not registered, please create group with "
            "torch.distributed.new_group API"
        )
    ranks = world.group_ranks[group]
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks[global_rank]


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    """Matches `torch.distributed.get_global_rank`."""
    if group is world.default:
        return group_rank
    if group not in world.group_ranks:
        raise ValueError(
            f"Group {group} is not registered, please create group with "
            "torch.distributed.new_group API"
        )
    for rank, in_group in world.group_ranks[group].items():
        if in_group == group_rank:
            return rank
    raise ValueError(f"Group rank {group_rank} is not part of group {group}")


def get_process_group_ranks(group: ProcessGroup | None) -> list[int]:
    """Matches `torch.distributed.get_process_group_ranks`."""
    return list(world.group_ranks[group or default_group()])


def get_pg_count() -> int:
    """Matches `torch.distributed.get_pg_count`."""
    return world.count


def get_node_local_rank(fallback_rank: int | None = None) -> int:
    """Matches `torch.distributed.get_node_local_rank` (LOCAL_RANK, which the launcher sets)."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError(
        "LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
        "`get_node_local_rank` to work, assuming you are not running in a multi-device "
        "context and want the code to run locally instead."
    )


def resolve(group, op_name: str) -> ProcessGroup | None:
    """The group a collective runs on; None (after torch's warning) outside it."""
    if group == GroupMember.NON_GROUP_MEMBER:
        default = world.default
        rank = -1 if default is None else default.rank()
        warnings.warn(
            f"Running {op_name} on global rank {rank} which does not belong to the given group.",
            stacklevel=3,
        )
        return None
    return default_group() if group is None else group


def group_rank_of(pg: ProcessGroup, global_rank=None, group_rank=None) -> int:
    """torch's `_canonicalize_group_rank`: `src`/`dst` (global) or `group_src`/`group_dst`."""
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError("Can't specify both group_rank and global_rank")
        return group_rank
    if global_rank is None:
        raise ValueError("Must specify global_rank or group_rank")
    return get_group_rank(pg, global_rank)
