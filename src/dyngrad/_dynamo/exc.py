"""`torch._dynamo.exc`: the exceptions compile raises, with PyTorch's names and bases."""

from __future__ import annotations

__all__ = [
    "TorchDynamoException",
    "Unsupported",
    "UserError",
    "RecompileError",
    "BackendCompilerFailed",
    "InternalTorchDynamoError",
    "TorchRuntimeError",
    "SkipFrame",
    "InvalidBackend",
]


class TorchDynamoException(RuntimeError):  # noqa: N818 - PyTorch's name
    pass


class Unsupported(TorchDynamoException):
    """A graph break under `fullgraph=True`: what Dynamo cannot trace."""


class UserError(TorchDynamoException):
    pass


class RecompileError(TorchDynamoException):
    pass


class BackendCompilerFailed(TorchDynamoException):
    pass


class InternalTorchDynamoError(TorchDynamoException):
    pass


class TorchRuntimeError(TorchDynamoException):
    pass


class SkipFrame(TorchDynamoException):
    pass


class InvalidBackend(TorchDynamoException):
    def __init__(self, name) -> None:
        super().__init__(
            f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available "
            "backends.\n(dyngrad accepts every backend name PyTorch ships; the compiled call "
            "runs on dyngrad's kernels whichever is named)"
        )
