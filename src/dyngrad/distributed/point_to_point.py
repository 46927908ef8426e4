"""Point-to-point messages: send, recv, isend, irecv and batched P2P operations."""

from __future__ import annotations

from . import mpi
from .arrays import byte_view
from .collectives import check_tensor
from .process_group import Work, default_group
from .ranks import get_global_rank, group_rank_of, resolve

__all__ = ["send", "recv", "isend", "irecv", "P2POp", "batch_isend_irecv"]


def _check_not_self(pg, rank: int, kind: str) -> None:
    if pg.rank() == rank:
        raise ValueError(
            f"Invalid {kind} rank: {kind} rank should not be the same as the rank of the "
            "current process."
        )


def isend(tensor, dst=None, group=None, tag: int = 0, group_dst=None):
    """Matches `torch.distributed.isend`: returns a Work; `tensor` must not change until then."""
    pg = default_group() if group is None else group
    if pg != -100:
        group_dst = group_rank_of(pg, dst, group_dst)
    check_tensor(tensor, "tensor")
    pg = resolve(group, "isend")
    if pg is None:
        return None
    sent = byte_view(tensor).buffer
    request = pg.comm.Isend(sent, dest=group_dst, tag=tag)
    return Work(pg, [request], "send", outputs=[tensor])


def irecv(tensor, src=None, group=None, tag: int = 0, group_src=None):
    """Matches `torch.distributed.irecv` (from any rank when `src` is None)."""
    check_tensor(tensor, "tensor")
    pg = resolve(group, "irecv")
    if pg is None:
        return None
    MPI = mpi.job().MPI
    if src is None and group_src is None:
        source = MPI.ANY_SOURCE
    else:
        source = group_rank_of(pg, src, group_src)
    out = byte_view(tensor)
    request = pg.comm.Irecv(out.buffer, source=source, tag=tag)

    def finish(work) -> None:
        out.finish()
        work._source = work.statuses[0].Get_source()

    work = Work(pg, [request], "recv", finish, [tensor])
    work.statuses = [MPI.Status()]
    return work


def send(tensor, dst=None, group=None, tag: int = 0, group_dst=None) -> None:
    """Matches `torch.distributed.send`."""
    pg = default_group() if group is None else group
    if pg != -100:
        group_dst = group_rank_of(pg, dst, group_dst)
        _check_not_self(pg, group_dst, "destination")
    work = isend(tensor, group=group, tag=tag, group_dst=group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag: int = 0, group_src=None) -> int:
    """Matches `torch.distributed.recv`: returns the sender's global rank."""
    work = irecv(tensor, src=src, group=group, tag=tag, group_src=group_src)
    if work is None:
        return -1
    work.wait()
    if src is None:
        pg = default_group() if group is None else group
        if group_src is None:
            group_src = work.source_rank()
            _check_not_self(pg, group_src, "source")
        src = get_global_rank(pg, group_src)
    return src


class P2POp:
    """Matches `torch.distributed.P2POp`: one isend or irecv for `batch_isend_irecv`."""

    def __init__(self, op, tensor, peer=None, group=None, tag: int = 0, group_peer=None):
        self.op, self.tensor, self.peer, self.group = op, tensor, peer, group
        self.tag, self.group_peer = tag, group_peer


def batch_isend_irecv(p2p_op_list: list) -> list:
    """Matches `torch.distributed.batch_isend_irecv`: starts every operation, returns Works."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError(
            "Invalid ``p2p_op_list``. Each op is expected to to be of type "
            "``torch.distributed.P2POp``."
        )
    first = p2p_op_list[0].group
    if not all(first == p.group for p in p2p_op_list):
        raise ValueError("All ops need to use the same group.")
    works = []
    for p in p2p_op_list:
        if p.op not in (isend, irecv):
            raise ValueError(
                "Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                "``torch.distributed.irecv``."
            )
        peer = {"group_dst" if p.op is isend else "group_src": p.group_peer}
        works.append(p.op(p.tensor, p.peer, p.group, p.tag, **peer))
    return works
