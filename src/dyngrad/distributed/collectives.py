"""Collectives on tensors, in place as torch's, run as MPI non-blocking operations.

Each call checks its arguments as torch does (the checks of `torch.distributed` and of its
Gloo backend, whose messages scripts on CPU see), starts MPI requests on its group's
communicator and returns a `Work` with `async_op=True`, else waits for it.
"""

from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from . import mpi
from .arrays import byte_view, staged
from .names import ReduceOp, supports_complex
from .process_group import Work
from .ranks import group_rank_of, resolve

__all__ = [
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
]


def check_tensor(param, param_name: str) -> None:
    if not isinstance(param, Tensor):
        raise TypeError(
            f"""Invalid function argument. Expected parameter `{param_name}` of type torch.Tensor
             but got {type(param)} instead."""
        )


def check_tensor_list(param, param_name: str) -> None:
    if not isinstance(param, list):
        raise TypeError(
            f"""Invalid function argument. Expected parameter `{param_name}` of type List[torch.Tensor]
             but got {type(param)} instead."""  # noqa: E501 - torch's text
        )
    if not all(isinstance(p, Tensor) for p in param):
        raise TypeError(
            f"""Invalid function argument. Expected parameter `{param_name}` of type List[torch.Tensor]
             but got {type(param)} with elements of type {[type(p) for p in param]}."""  # noqa: E501
        )


def _same_dtype(*tensors) -> None:
    last = None
    for t in [t for item in tensors for t in (item if isinstance(item, list) else [item])]:
        kind = t.dtype
        if kind.is_complex:  # a complex tensor may meet its element type
            kind = {"complex64": "float32"}.get(kind.name, "float64")
        else:
            kind = kind.name
        if last is not None and last != kind:
            raise ValueError(
                f"Invalid usage of tensors with different dtypesFound {last} and  {t.dtype}"
            )
        last = kind


def run(pg, requests: list, what: str, async_op: bool, finish=None, outputs=()):
    """The end of every collective: a Work to return, or the operation waited for."""
    work = Work(pg, requests, what, finish, outputs)
    if async_op:
        return work
    work.wait()
    return None


def _shape(shape) -> str:
    return "(" + ", ".join(str(n) for n in shape) + ")"


# ---- reductions ------------------------------------------------------------------------------


def _mpi_op(op, tensor):
    """The MPI reduction for `op` on `tensor`'s dtype, and whether to divide after (AVG)."""
    MPI = mpi.job().MPI
    if op == ReduceOp.PREMUL_SUM:
        raise RuntimeError("PREMUL_SUM is only supported by the NCCL backend")
    kind = tensor.dtype
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR):
        if kind.is_floating_point or kind.is_complex:
            raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
        return {ReduceOp.BAND: MPI.BAND, ReduceOp.BOR: MPI.BOR, ReduceOp.BXOR: MPI.BXOR}[op], False
    if op == ReduceOp.AVG and not (kind.is_floating_point or kind.is_complex):
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {kind._legacy}"
        )
    if kind.name == "bool":  # as 0/1 bytes (See Note [Collective buffers])
        return {ReduceOp.SUM: MPI.MAX, ReduceOp.PRODUCT: MPI.MIN}.get(op, _plain(MPI, op)), False
    return _plain(MPI, op), op == ReduceOp.AVG


def _plain(MPI, op):
    table = {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD}
    table.update({ReduceOp.MIN: MPI.MIN, ReduceOp.MAX: MPI.MAX})
    if op not in table:
        raise TypeError(f"all_reduce(): invalid reduction {op!r}")
    return table[op]


def _check_complex(tensor, op, name: str = "all_reduce") -> None:
    if tensor.is_complex() and not supports_complex(op):
        raise ValueError(f"{name} does not support {op} on complex tensors")


def _finisher(buffers: list, divide: int = 0):
    def finish(work) -> None:
        for buf in buffers:
            if divide:
                np.divide(buf.buffer, divide, out=buf.buffer, casting="unsafe")
            buf.finish()

    return finish


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Matches `torch.distributed.all_reduce`: `tensor` becomes the reduction over ranks."""
    check_tensor(tensor, "tensor")
    pg = resolve(group, "all_reduce")
    if pg is None:
        return None
    _check_complex(tensor, op)
    mpi_op, average = _mpi_op(op, tensor)
    buf = staged(tensor, reducing=True)
    request = pg.comm.Iallreduce(mpi.job().MPI.IN_PLACE, buf.buffer, op=mpi_op)
    finish = _finisher([buf], pg.size() if average else 0)
    return run(pg, [request], "all_reduce", async_op, finish, [tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Matches `torch.distributed.reduce`: the reduction lands in `dst`'s tensor."""
    pg = resolve(group, "reduce")
    root = group_rank_of(pg, dst, group_dst) if pg is not None else None
    check_tensor(tensor, "tensor")
    if pg is None:
        return None
    mpi_op, average = _mpi_op(op, tensor)
    buf = staged(tensor, reducing=True)
    MPI = mpi.job().MPI
    if pg.rank() == root:
        request = pg.comm.Ireduce(MPI.IN_PLACE, buf.buffer, op=mpi_op, root=root)
        finish = _finisher([buf], pg.size() if average else 0)
    else:  # the other ranks' tensors are left as they were
        request = pg.comm.Ireduce(buf.buffer.copy(), None, op=mpi_op, root=root)
        finish = None
    return run(pg, [request], "reduce", async_op, finish, [tensor])


# ---- moving data -----------------------------------------------------------------------------


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Matches `torch.distributed.broadcast`: every rank's tensor becomes `src`'s."""
    pg = resolve(group, "broadcast")
    root = group_rank_of(pg, src, group_src) if pg is not None else None
    check_tensor(tensor, "tensor")
    if pg is None:
        return None
    if not 0 <= root < pg.size():
        raise RuntimeError(f"ProcessGroupGloo::broadcast: invalid root rank: {root}")
    buf = byte_view(tensor)
    request = pg.comm.Ibcast(buf.buffer, root=root)
    return run(pg, [request], "broadcast", async_op, _finisher([buf]), [tensor])


def _check_outputs(kind: str, outputs: list, size: int, shape, what="output") -> None:
    if len(outputs) != size:
        raise RuntimeError(
            f"ProcessGroupGloo::{kind}: Incorrect {what} list size {len(outputs)}. "
            f"{what.capitalize()} list size should be {size}, same as size of the process "
            "group."
        )
    for index, t in enumerate(outputs):
        if tuple(t.shape) != tuple(shape):
            raise RuntimeError(
                f"ProcessGroupGloo::{kind}: invalid tensor size at index {index} "
                f"(expected {_shape(shape)}, got {_shape(t.shape)})"
            )


def _scatter_into(outputs: list, received: np.ndarray):
    def finish(work) -> None:
        for t, chunk in zip(outputs, np.split(received, len(outputs))):
            view = byte_view(t)
            view.buffer[...] = chunk
            view.finish()

    return finish


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Matches `torch.distributed.all_gather`: `tensor_list[i]` becomes rank i's tensor."""
    check_tensor_list(tensor_list, "tensor_list")
    check_tensor(tensor, "tensor")
    _same_dtype(tensor_list, tensor)
    pg = resolve(group, "all_gather")
    if pg is None:
        return None
    if len(tensor_list) != pg.size():
        raise RuntimeError(
            "ProcessGroupGloo::allgather: invalid output tensor list at index 0 (expected "
            f"length {pg.size()}, got {len(tensor_list)})"
        )
    _check_outputs("allgather", tensor_list, pg.size(), tensor.shape)
    sent = byte_view(tensor).buffer
    received = np.empty(sent.size * pg.size(), np.uint8)
    request = pg.comm.Iallgather(sent, received)
    finish = _scatter_into(tensor_list, received)
    return run(pg, [request], "all_gather", async_op, finish, tensor_list)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Matches `torch.distributed.all_gather_into_tensor` (rank i's input is the i-th slice of
    `output_tensor` along dim 0, as the Gloo backend requires)."""
    check_tensor(input_tensor, "input_tensor")
    check_tensor(output_tensor, "output_tensor")
    pg = resolve(group, "all_gather_single")
    if pg is None:
        return None
    size, rows = pg.size(), (output_tensor.shape or (1,))[0]
    chunk = (math.ceil(rows / size), *output_tensor.shape[1:])
    if rows % size or chunk != tuple(input_tensor.shape):
        raise RuntimeError(
            "ProcessGroupGloo::allgather: invalid tensor size at index 0 (expected "
            f"{_shape(input_tensor.shape)}, got {_shape(chunk)})"
        )
    out = byte_view(output_tensor)
    request = pg.comm.Iallgather(byte_view(input_tensor).buffer, out.buffer)
    return run(pg, [request], "all_gather_into_tensor", async_op, _finisher([out]))


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Matches `torch.distributed.reduce_scatter_tensor`: `output` becomes this rank's slice
    of the reduction of every rank's `input`."""
    check_tensor(output, "output")
    check_tensor(input, "input")
    pg = resolve(group, "reduce_scatter_single")
    if pg is None:
        return None
    size = pg.size()
    rows_out, rows_in = (output.shape or (1,))[0], (input.shape or (1,))[0]
    if rows_out * size != rows_in or input.numel() != output.numel() * size:
        raise RuntimeError(
            "Check failed: outputShape[0] * worldSize == inputShape[0] "
            f"({rows_out * size} vs. {rows_in})"
        )
    return _reduce_scatter(pg, output, staged(input, reducing=True).buffer, op, async_op)


def _reduce_scatter(pg, output, sent: np.ndarray, op, async_op: bool):
    _check_complex(output, op, "reduce_scatter")
    mpi_op, average = _mpi_op(op, output)
    out = staged(output, reducing=True)
    request = pg.comm.Ireduce_scatter_block(sent, out.buffer, op=mpi_op)
    finish = _finisher([out], pg.size() if average else 0)
    return run(pg, [request], "reduce_scatter", async_op, finish, [output])


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Matches `torch.distributed.reduce_scatter`: `output` becomes the reduction of every
    rank's `input_list[rank]`."""
    check_tensor(output, "output")
    check_tensor_list(input_list, "input_list")
    _same_dtype(output, input_list)
    pg = resolve(group, "reduce_scatter")
    if pg is None:
        return None
    _check_outputs("reduce_scatter", input_list, pg.size(), output.shape, "input")
    sent = np.concatenate([staged(t, reducing=True).buffer for t in input_list])
    return _reduce_scatter(pg, output, sent, op, async_op)


def _root_list(items, name: str, is_root: bool, verb: str) -> list:
    if is_root and not items:
        raise ValueError(f"Argument ``{name}`` must be specified on {verb} rank.")
    if not is_root and items:
        raise ValueError(f"Argument ``{name}`` must NOT be specified on non-{verb} ranks.")
    return items or []


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Matches `torch.distributed.gather`: `dst`'s `gather_list[i]` becomes rank i's tensor."""
    check_tensor(tensor, "tensor")
    if gather_list:
        check_tensor_list(gather_list, "gather_list")
    _same_dtype(tensor, gather_list or [])
    pg = resolve(group, "gather")
    if pg is None:
        return None
    root = group_rank_of(pg, 0 if dst is None and group_dst is None else dst, group_dst)
    is_root = pg.rank() == root
    outputs = _root_list(gather_list, "gather_list", is_root, "destination")
    sent = byte_view(tensor).buffer
    received = None
    if is_root:
        _check_outputs("gather", outputs, pg.size(), tensor.shape)
        received = np.empty(sent.size * pg.size(), np.uint8)
    request = pg.comm.Igather(sent, received, root=root)
    finish = _scatter_into(outputs, received) if is_root else None
    return run(pg, [request], "gather", async_op, finish, outputs)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Matches `torch.distributed.scatter`: rank i's tensor becomes `src`'s `scatter_list[i]`."""
    check_tensor(tensor, "tensor")
    if scatter_list:
        check_tensor_list(scatter_list, "scatter_list")
    _same_dtype(tensor, scatter_list or [])
    pg = resolve(group, "scatter")
    if pg is None:
        return None
    root = group_rank_of(pg, 0 if src is None and group_src is None else src, group_src)
    is_root = pg.rank() == root
    inputs = _root_list(scatter_list, "scatter_list", is_root, "source")
    sent = None
    if is_root:
        _check_outputs("scatter", inputs, pg.size(), tensor.shape, "input")
        sent = np.concatenate([byte_view(t).buffer for t in inputs])
    out = byte_view(tensor)
    request = pg.comm.Iscatter(sent, out.buffer, root=root)
    return run(pg, [request], "scatter", async_op, _finisher([out]), [tensor])


def all_to_all_single(
    output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False
):
    """Matches `torch.distributed.all_to_all_single`: rank i's j-th slice of `input` (along
    dim 0) becomes rank j's i-th slice of `output`."""
    check_tensor(output, "output")
    check_tensor(input, "input")
    _same_dtype(output, input)
    pg = resolve(group, "all_to_all_single")
    if pg is None:
        return None
    sent, out = byte_view(input), byte_view(output)
    send_counts = _split_bytes(input, input_split_sizes, pg.size())
    recv_counts = _split_bytes(output, output_split_sizes, pg.size())
    request = pg.comm.Ialltoallv(
        [sent.buffer, (send_counts, _offsets(send_counts))],
        [out.buffer, (recv_counts, _offsets(recv_counts))],
    )
    return run(pg, [request], "all_to_all_single", async_op, _finisher([out]), [output])


def _split_bytes(t, splits, size: int) -> list[int]:
    rows = (t.shape or (1,))[0]
    row_bytes = t.numel() * t.element_size() // max(rows, 1)
    if not splits:
        if rows % size:
            raise RuntimeError(f"Tensor's dim 0 does not divide equally across group size {size}")
        splits = [rows // size] * size
    return [int(n) * row_bytes for n in splits]


def _offsets(counts: list[int]) -> list[int]:
    return [sum(counts[:i]) for i in range(len(counts))]


def barrier(group=None, async_op=False, device_ids=None, timeout=None):
    """Matches `torch.distributed.barrier`."""
    pg = resolve(group, "barrier")
    if pg is None:
        return None
    work = Work(pg, [pg.comm.Ibarrier()], "barrier")
    if async_op:
        return work
    work.wait(timeout)
    return None
