"""`torch.types`: the type aliases PyTorch's annotations (and libraries' own) use.

dyngrad has no symbolic shapes, so the `*LikeType` aliases are the plain Python types and
`SymInt`/`SymFloat`/`SymBool` are those types too."""

# (no `from __future__ import annotations`: these aliases are values, built at import)

import builtins
import os
from collections.abc import Sequence
from typing import IO, Any

from ._tensor import Tensor
from .runtime.device import device as _device
from .runtime.dtypes import dtype as _dtype
from .runtime.layouts import layout as _layout
from .runtime.storage import UntypedStorage
from .size import Size

__all__ = ["Number", "Device", "FileLike", "Storage", "Tensor"]

_bool = builtins.bool
_complex = builtins.complex
_float = builtins.float
_int = builtins.int
_str = builtins.str
_bytes = builtins.bytes

SymInt, SymFloat, SymBool = builtins.int, builtins.float, builtins.bool
IntLikeType = _int
FloatLikeType = _float
BoolLikeType = _bool
PySymType = _int | _float | _bool

Number = _int | _float | _bool
_Number = (_int, _float, _bool)  # for isinstance, as PyTorch's
Device = _device | _str | _int | None
_size = Size | list[_int] | tuple[_int, ...]
_symsize = Size | Sequence[_int]
_TensorOrTensors = Tensor | Sequence[Tensor]
_TensorOrOptionalTensors = Tensor | Sequence[Tensor | None]
_dispatchkey = _str
FileLike = _str | os.PathLike | IO[bytes]
Storage = UntypedStorage
_qscheme = Any
__all__ += ["_dtype", "_device", "_layout"]
