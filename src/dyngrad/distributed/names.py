"""The names `torch.distributed` scripts use: ReduceOp, Backend, default timeouts, errors."""

from __future__ import annotations

from datetime import timedelta
from enum import IntEnum

__all__ = [
    "ReduceOp",
    "Backend",
    "default_pg_timeout",
    "default_pg_nccl_timeout",
    "DistError",
    "DistBackendError",
    "DistNetworkError",
    "DistStoreError",
    "supports_complex",
]

default_pg_timeout = timedelta(minutes=30)
default_pg_nccl_timeout = None  # torch's value when NCCL is not built in


class _RedOpType(IntEnum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8

    def __str__(self) -> str:
        return f"RedOpType.{self.name}"

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name}: {int(self)}>"


_RedOpType.__name__ = _RedOpType.__qualname__ = "RedOpType"


class ReduceOp:
    """Matches `torch.distributed.ReduceOp`: `ReduceOp.SUM` is `ReduceOp.RedOpType.SUM`."""

    RedOpType = _RedOpType
    SUM = _RedOpType.SUM
    AVG = _RedOpType.AVG
    PRODUCT = _RedOpType.PRODUCT
    MIN = _RedOpType.MIN
    MAX = _RedOpType.MAX
    BAND = _RedOpType.BAND
    BOR = _RedOpType.BOR
    BXOR = _RedOpType.BXOR
    PREMUL_SUM = _RedOpType.PREMUL_SUM

    def __init__(self, op: _RedOpType) -> None:
        self.op = _RedOpType(op)


def supports_complex(reduceOp) -> bool:
    """Matches `torch.distributed.supports_complex`."""
    denied = (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT)
    return reduceOp not in denied + (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR)


class Backend(str):
    """Matches `torch.distributed.Backend`: lower-case backend names (`Backend("GLOO")`)."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    FAKE = "fake"
    backend_list = [UNDEFINED, GLOO, NCCL, XCCL, UCC, MPI, FAKE]
    default_device_backend_map = {"cpu": GLOO, "cuda": NCCL, "xpu": XCCL, "mps": GLOO}

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError("Backend constructor parameter must be string-ish")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return value


class DistError(RuntimeError):
    """Matches `torch.distributed.DistError`."""


class DistBackendError(DistError):
    """Matches `torch.distributed.DistBackendError`: a collective failed or timed out."""


class DistNetworkError(DistError):
    """Matches `torch.distributed.DistNetworkError`."""


class DistStoreError(DistError):
    """Matches `torch.distributed.DistStoreError`."""
