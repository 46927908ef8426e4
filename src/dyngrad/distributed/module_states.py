"""Replicas made identical: parameter shapes compared across ranks, states sent from rank 0."""

from __future__ import annotations

import numpy as np

from .arrays import array
from .objects import all_gather_object

__all__ = ["verify_param_shapes", "broadcast_states"]


def verify_param_shapes(pg, params: list) -> None:
    """torch's `_verify_param_shape_across_processes`: every rank holds rank 0's shapes.

    Every rank raises (not only the one that differs), so that none waits for the others.
    """
    shapes = [tuple(p.shape) for p in params]
    everyone = [None] * pg.size()
    all_gather_object(everyone, shapes, group=pg)
    reference, me = everyone[0], pg.rank()
    for rank, theirs in enumerate(everyone):
        if len(theirs) != len(reference):
            raise RuntimeError(
                f"DDP expects same model across all ranks, but Rank {rank} has {len(theirs)} "
                f"params, while rank 0 has inconsistent {len(reference)} params."
            )
        for i, (mine, ref) in enumerate(zip(theirs, reference)):
            if mine == ref:
                continue
            where = "this process" if rank == me else f"process {rank}"
            raise RuntimeError(
                f"[{me}]: params[{i}] in {where} with sizes {list(mine)} appears not to match "
                "sizes of the same param in process 0."
            )


def broadcast_states(pg, tensors: list, src: int = 0) -> None:
    """Overwrite `tensors` (parameters, buffers) with `src`'s, one message per dtype."""
    by_kind: dict = {}
    for t in tensors:
        by_kind.setdefault(array(t).dtype, []).append(t)
    for group in by_kind.values():
        flat = np.concatenate([np.ascontiguousarray(array(t)).reshape(-1) for t in group])
        data = flat.view(np.uint8)
        pg.wait([pg.comm.Ibcast(data, root=src)], "broadcast")
        offsets = np.cumsum([t.numel() for t in group])[:-1]
        for t, values in zip(group, np.split(flat, offsets)):
            array(t)[...] = values.reshape(array(t).shape)
