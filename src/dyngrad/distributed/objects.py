"""Collectives on Python objects: pickled, sent as bytes, and loaded from group members only."""

from __future__ import annotations

import io
import pickle

import numpy as np

from .ranks import group_rank_of, resolve

__all__ = [
    "all_gather_object",
    "broadcast_object_list",
    "gather_object",
    "scatter_object_list",
]


def _dumps(obj) -> np.ndarray:
    f = io.BytesIO()
    pickle.Pickler(f).dump(obj)
    return np.frombuffer(f.getvalue(), np.uint8)


def _loads(data: np.ndarray):
    # the bytes came over the group's communicator: only its members can have sent them
    return pickle.Unpickler(io.BytesIO(data.tobytes())).load()


def _gather_bytes(pg, data: np.ndarray, root=None) -> list | None:
    """Every member's bytes, on every rank (root None) or on `root` alone."""
    sizes = np.empty(pg.size(), np.int64)
    pg.wait([pg.comm.Iallgather(np.array([data.size], np.int64), sizes)], "all_gather")
    counts = [int(n) for n in sizes]
    offsets = [sum(counts[:i]) for i in range(len(counts))]
    received = np.empty(sum(counts), np.uint8)
    if root is None:
        request = pg.comm.Iallgatherv(data, [received, (counts, offsets)])
    elif pg.rank() == root:
        request = pg.comm.Igatherv(data, [received, (counts, offsets)], root=root)
    else:
        request = pg.comm.Igatherv(data, None, root=root)
    pg.wait([request], "gather" if root is not None else "all_gather")
    if root is not None and pg.rank() != root:
        return None
    return [received[o : o + n] for o, n in zip(offsets, counts)]


def all_gather_object(object_list: list, obj, group=None) -> None:
    """Matches `torch.distributed.all_gather_object`: `object_list[i]` becomes rank i's `obj`."""
    pg = resolve(group, "all_gather_object")
    if pg is None:
        return
    for i, data in enumerate(_gather_bytes(pg, _dumps(obj))):
        object_list[i] = _loads(data)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None) -> None:
    """Matches `torch.distributed.gather_object`: on `dst`, `object_gather_list[i]` becomes
    rank i's `obj`."""
    pg = resolve(group, "gather_object")
    if pg is None:
        return
    root = group_rank_of(pg, 0 if dst is None and group_dst is None else dst, group_dst)
    if pg.rank() == root and not object_gather_list:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if pg.rank() != root and object_gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    gathered = _gather_bytes(pg, _dumps(obj), root)
    if gathered is not None:
        for i, data in enumerate(gathered):
            object_gather_list[i] = _loads(data)


def broadcast_object_list(object_list: list, src=None, group=None, device=None, group_src=None):
    """Matches `torch.distributed.broadcast_object_list`: every rank's list becomes `src`'s."""
    pg = resolve(group, "broadcast_object_list")
    if pg is None:
        return
    root = group_rank_of(pg, 0 if src is None and group_src is None else src, group_src)
    is_root = pg.rank() == root
    pieces = [_dumps(obj) for obj in object_list] if is_root else []
    sizes = np.array([p.size for p in pieces] if is_root else [0] * len(object_list), np.int64)
    pg.wait([pg.comm.Ibcast(sizes, root=root)], "broadcast")
    data = np.concatenate(pieces) if is_root and pieces else np.empty(int(sizes.sum()), np.uint8)
    pg.wait([pg.comm.Ibcast(data, root=root)], "broadcast")
    if not is_root:
        offset = 0
        for i, size in enumerate(int(n) for n in sizes):
            object_list[i] = _loads(data[offset : offset + size])
            offset += size


def scatter_object_list(
    scatter_object_output_list: list,
    scatter_object_input_list=None,
    src=None,
    group=None,
    group_src=None,
) -> None:
    """Matches `torch.distributed.scatter_object_list`: `scatter_object_output_list[0]`
    becomes `src`'s `scatter_object_input_list[rank]`."""
    pg = resolve(group, "scatter_object_list")
    if pg is None:
        return
    root = group_rank_of(pg, 0 if src is None and group_src is None else src, group_src)
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError(
            "Expected argument scatter_object_output_list to be a list of size at least 1."
        )
    counts, data = np.zeros(pg.size(), np.int64), None
    if pg.rank() == root:
        if scatter_object_input_list is None:
            raise ValueError("source rank must provide non-None scatter_object_input_list")
        pieces = [_dumps(obj) for obj in scatter_object_input_list]
        counts[:] = [p.size for p in pieces]
        data = np.concatenate(pieces)
    pg.wait([pg.comm.Ibcast(counts, root=root)], "broadcast")
    mine = np.empty(int(counts[pg.rank()]), np.uint8)
    offsets = [int(counts[:i].sum()) for i in range(pg.size())]
    sent = None if data is None else [data, ([int(n) for n in counts], offsets)]
    pg.wait([pg.comm.Iscatterv(sent, mine, root=root)], "scatter")
    scatter_object_output_list[0] = _loads(mine)
