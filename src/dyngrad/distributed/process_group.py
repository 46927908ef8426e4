"""Process groups on MPI communicators: the default group, new groups, ranks, `Work` handles."""

from __future__ import annotations

import os
from datetime import timedelta

from . import mpi
from .names import Backend, default_pg_timeout

__all__ = [
    "ProcessGroup",
    "Work",
    "GroupMember",
    "group",
    "init_process_group",
    "destroy_process_group",
    "new_group",
    "is_initialized",
    "default_group",
]

_NOT_INITIALIZED = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)


class ProcessGroup:
    """Matches `torch.distributed.ProcessGroup`: ranks that run collectives together.

    dyngrad's groups are MPI communicators; `backend` is the name the script asked for.
    """

    def __init__(self, comm, ranks: list[int], backend: str, timeout: timedelta) -> None:
        self.comm = comm
        self.ranks = list(ranks)  # global ranks, by group rank
        self.backend = backend
        self.timeout = timeout
        self._rank, self._size = comm.Get_rank(), comm.Get_size()

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return self._size

    def name(self) -> str:
        return self.backend

    @property
    def group_name(self) -> str:
        return str(world.names.get(self, ""))

    def wait(self, requests: list, what: str, timeout=None, statuses=None) -> None:
        """Wait for this group's MPI `requests` (See Note [Ending a failed job])."""
        limit = self.timeout.total_seconds() if timeout is None else timeout
        mpi.wait(requests, self.ranks, limit, what, statuses)


class Work:
    """Matches `torch.distributed.Work`: what an `async_op=True` call returns.

    The operation runs as MPI non-blocking requests; `wait()` completes them and writes the
    results into the output tensors (See Note [Collective buffers]).
    """

    def __init__(self, pg: ProcessGroup, requests: list, what: str, finish=None, outputs=()):
        self._pg, self._requests, self._what = pg, requests, what
        self._finish = finish
        self._outputs = list(outputs)
        self._done = False
        self.statuses = None  # MPI statuses, for a receive from any source
        self._source = -1

    def wait(self, timeout: timedelta | None = None) -> bool:
        if not self._done:
            seconds = None if timeout is None else timeout.total_seconds()
            self._pg.wait(self._requests, self._what, seconds, self.statuses)
            self._complete()
        return True

    def _complete(self) -> None:
        self._done = True
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish(self)

    def is_completed(self) -> bool:
        if not self._done and mpi.job().MPI.Request.Testall(self._requests, self.statuses):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        return self.is_completed()

    def exception(self):
        return None

    def result(self) -> list:
        self.wait()
        return self._outputs

    def source_rank(self) -> int:
        """The group rank a receive got its message from."""
        return self._source

    _source_rank = source_rank

    def synchronize(self) -> None:
        self.wait()


class _WorldMeta(type):
    @property
    def WORLD(cls) -> ProcessGroup | None:
        return world.default


class GroupMember(metaclass=_WorldMeta):
    """Matches `torch.distributed.GroupMember`: `WORLD` and `NON_GROUP_MEMBER`."""

    NON_GROUP_MEMBER = -100


class group(metaclass=_WorldMeta):
    """Matches `torch.distributed.group`: `group.WORLD` is the default group."""


class World:
    def __init__(self) -> None:
        self.default: ProcessGroup | None = None
        self.group_ranks: dict[ProcessGroup, dict[int, int]] = {}  # global -> group rank
        self.names: dict[ProcessGroup, str] = {}
        self.count = 0


world = World()


def is_initialized() -> bool:
    """Matches `torch.distributed.is_initialized`."""
    return world.default is not None


def default_group() -> ProcessGroup:
    if world.default is None:
        raise ValueError(_NOT_INITIALIZED)
    return world.default


def init_process_group(
    backend: str | None = None,
    init_method: str | None = None,
    timeout: timedelta | None = None,
    world_size: int = -1,
    rank: int = -1,
    store=None,
    group_name: str = "",
    pg_options=None,
    device_id=None,
) -> None:
    """Matches `torch.distributed.init_process_group`, on MPI.

    The ranks come from the MPI launcher (`mpiexec -n N`, `python -m dyngrad.distributed.run`);
    `rank` and `world_size`, when given, must agree with it. Without a launcher the job is this
    process alone (world_size 1). `init_method` and `store` locate no peers: MPI already has.
    """
    if world.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None and init_method is not None:
        raise AssertionError("Cannot specify both init_method and store.")
    if store is not None and not world_size > 0:
        raise AssertionError("world_size must be positive if using store")
    if store is not None and not rank >= 0:
        raise AssertionError("rank must be non-negative if using store")
    name = _backend_name(backend, device_id)
    timeout = default_pg_timeout if timeout is None else timeout
    _check_valid_timeout(timeout)
    job = mpi.job()
    _check_place(job, init_method or "env://", world_size, rank, store is not None)
    pg = ProcessGroup(job.world.Dup(), list(range(job.size)), name, timeout)
    _register(pg, {r: r for r in range(job.size)}, group_name or "0")
    world.default = pg
    world.count = 1
    job.active = True


def _backend_name(backend, device_id) -> str:
    if isinstance(device_id, int):
        raise ValueError(
            "device_id is an int, but no accelerator support is found from the current "
            "compilation. Please use a different compiled version that supports your "
            "accelerator."
        )
    if device_id is not None and str(getattr(device_id, "type", device_id)) != "cpu":
        raise ValueError(
            f"device_id {device_id} does not match the current compilation's accelerator "
            "support: None. Please use a different compiled version that supports your "
            "accelerator."
        )
    name = Backend(backend or Backend.GLOO)
    if ":" in name:  # "cpu:gloo,cuda:nccl": only the CPU's backend runs here
        pairs = dict(pair.split(":", 1) for pair in name.split(","))
        name = Backend(pairs.get("cpu", Backend.GLOO))
    if name not in (Backend.GLOO, Backend.MPI):
        raise RuntimeError(f"Distributed package doesn't have {name.upper()} built in")
    return name


def _check_valid_timeout(timeout) -> None:
    if not isinstance(timeout, timedelta):
        raise TypeError(
            f"Expected timeout argument to be of type datetime.timedelta, got {timeout}"
        )


def _check_place(job, init_method: str, world_size: int, rank: int, has_store: bool) -> None:
    """The job's size and this rank come from MPI; what the script says must agree."""
    from urllib.parse import parse_qs, urlparse  # here: a tenth of `import dyngrad` otherwise

    query = {k: v[-1] for k, v in parse_qs(urlparse(init_method).query).items()}
    rank = int(query.get("rank", rank))
    world_size = int(query.get("world_size", world_size))
    if job.size == 1 and not mpi.launched_by_mpi() and not has_store:
        env = "env:// rendezvous: environment variable {} expected, but not set"
        if rank < 0 and init_method.startswith("env://"):
            rank = _env_int("RANK", env)
        if world_size < 0 and init_method.startswith("env://"):
            world_size = _env_int("WORLD_SIZE", env)
    if world_size not in (-1, job.size) or rank not in (-1, job.rank):
        raise RuntimeError(
            f"init_process_group(rank={rank}, world_size={world_size}) does not match this "
            f"process's place in its MPI job: rank {job.rank} of {job.size}.\n"
            "[dyngrad] torch.distributed runs on MPI, and the MPI launcher starts the processes "
            "and numbers them: start N ranks with `mpiexec -n N python script.py` or "
            "`python -m dyngrad.distributed.run --nproc-per-node N script.py` (mp.spawn and "
            "separately started processes cannot join one job)"
        )


def _env_int(name: str, template: str) -> int:
    value = os.environ.get(name)
    if not value:
        raise ValueError("Error initializing torch.distributed using " + template.format(name))
    return int(value)


def _register(pg: ProcessGroup, ranks: dict[int, int], name: str) -> None:
    world.group_ranks[pg] = ranks
    world.names[pg] = name


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Matches `torch.distributed.destroy_process_group` (MPI itself stays up until exit)."""
    if group == GroupMember.NON_GROUP_MEMBER:
        return
    pg = world.default if group is None else group
    if pg is None:
        raise AssertionError("Process group cannot be None")
    if pg not in world.group_ranks:
        raise ValueError("Invalid process group specified")
    doomed = list(world.group_ranks) if pg is world.default else [pg]
    for member in doomed:
        del world.group_ranks[member]
        world.names.pop(member, None)
        member.comm.Free()
    if pg is world.default:
        world.default = None
        world.count = 0
        mpi.job().active = False


def new_group(
    ranks=None,
    timeout=None,
    backend=None,
    pg_options=None,
    use_local_synchronization: bool = False,
    group_desc=None,
    device_id=None,
    sort_ranks: bool = True,
):
    """Matches `torch.distributed.new_group`: every rank calls it; non-members get
    `GroupMember.NON_GROUP_MEMBER` (None with `use_local_synchronization`)."""
    default = default_group()
    name = Backend(backend) if backend else default.backend
    timeout = default.timeout if timeout is None else timeout
    _check_valid_timeout(timeout)
    if use_local_synchronization and name == Backend.MPI:
        raise ValueError("MPI backend doesn't support use_local_synchronization=True")
    size = default.size()
    ranks = _checked_ranks(ranks, size, sort_ranks)
    tag = world.count
    world.count += 1  # every rank counts every group, member or not
    if default.rank() not in ranks:
        return None if use_local_synchronization else GroupMember.NON_GROUP_MEMBER
    everyone = default.comm.Get_group()
    members = everyone.Incl(ranks)
    comm = default.comm.Create_group(members, tag)  # collective over the members alone
    members.Free()
    everyone.Free()
    pg = ProcessGroup(comm, ranks, name, timeout)
    _register(pg, {g: i for i, g in enumerate(ranks)}, str(tag))
    return pg


def _checked_ranks(ranks, size: int, sort_ranks: bool) -> list[int]:
    if ranks is None:
        return list(range(size))
    ranks = sorted(ranks) if sort_ranks else list(ranks)
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"ranks list must not contain duplicate entries, got {ranks}")
    if len(ranks) > size:
        raise ValueError(
            "the new group's world size should be less or equal to the world size set by "
            "init_process_group"
        )
    for rank in ranks:
        if rank < 0 or rank >= size:
            raise ValueError(
                f"Rank {rank} is out of range. Valid ranks are 0 to {size - 1} (world_size={size})"
            )
    return ranks
