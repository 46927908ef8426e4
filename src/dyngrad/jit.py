"""`torch.jit`: the surface libraries and models touch, answered as eager PyTorch answers it.

dyngrad has no TorchScript compiler (its own capture is `dyngrad.compile`). `is_scripting()`
and `is_tracing()` are False, as in eager PyTorch; the decorators (`unused`, `ignore`,
`export`) mark a function as PyTorch's do and return it; `script` and `trace` return the
module or function unchanged, so code that scripts a helper still runs eagerly, with the same
values (unlike PyTorch, the result is not a `ScriptModule` and cannot be `torch.jit.save`d).
"""

from __future__ import annotations

import typing
import warnings
from typing import Any

from .nn import Module

__all__ = [
    "Attribute",
    "Error",
    "Final",
    "ScriptFunction",
    "ScriptModule",
    "RecursiveScriptModule",
    "annotate",
    "export",
    "ignore",
    "interface",
    "is_scripting",
    "is_tracing",
    "load",
    "save",
    "script",
    "script_method",
    "trace",
    "unused",
]

Final = typing.Final


class Error(RuntimeError):
    """Matches `torch.jit.Error`: what TorchScript raises (never raised by dyngrad)."""


class ScriptModule(Module):
    """Matches `torch.jit.ScriptModule` as a type: no dyngrad module is one, so
    `isinstance(m, ScriptModule)` checks (torchinfo's, for instance) answer False."""


class RecursiveScriptModule(ScriptModule):
    """Matches `torch.jit.RecursiveScriptModule` as a type (see `ScriptModule`)."""


class ScriptFunction:
    """Matches `torch.jit.ScriptFunction` as a type: `script` never makes one in dyngrad."""


def is_scripting() -> bool:
    """Matches `torch.jit.is_scripting`: False, as in eager PyTorch."""
    return False


def is_tracing() -> bool:
    """Matches `torch.jit.is_tracing`: False, as in eager PyTorch."""
    return False


def _modifier(fn, what: str):
    # PyTorch marks the function with this attribute for its compiler; code may read it
    fn._torchscript_modifier = what
    return fn


def unused(fn):
    """Matches `torch.jit.unused`: marks `fn` and returns it (eager code calls it as is)."""
    return _modifier(fn, "unused (ignored and replaced with raising of an exception)")


def ignore(drop=False, **kwargs):
    """Matches `torch.jit.ignore`, with or without arguments: marks the function, returns it."""
    if callable(drop):
        return _modifier(drop, "ignore (leave as a call to Python, cannot be torch.jit.save'd)")
    return ignore if not drop else unused


def export(fn):
    """Matches `torch.jit.export`: marks `fn` and returns it."""
    return _modifier(fn, "export (compile this function even if nothing calls it)")


def script_method(fn):
    """Matches `torch.jit.script_method`: returns `fn`, run eagerly."""
    return fn


def interface(obj):
    """Matches `torch.jit.interface`: returns the class unchanged."""
    return obj


def annotate(the_type, the_value):
    """Matches `torch.jit.annotate`: returns `the_value`."""
    return the_value


def Attribute(value, type=None):  # noqa: A002 - PyTorch's parameter name
    """Matches `torch.jit.Attribute` in eager mode: returns `value`."""
    return value


def script(obj: Any, optimize=None, _frames_up: int = 0, _rcb=None, example_inputs=None):
    """`torch.jit.script`, eagerly: returns `obj` unchanged (dyngrad compiles no TorchScript;
    the object runs as Python with the same values, but is no `ScriptModule`). It warns, as
    PyTorch 2.13 does, that TorchScript is deprecated."""
    _deprecated("script")
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    """`torch.jit.trace`, eagerly: returns `func` unchanged (see `script`)."""
    _deprecated("trace")
    return func


def _deprecated(name: str) -> None:
    warnings.warn(
        f"`torch.jit.{name}` is deprecated. Please switch to `torch.compile` or `torch.export`.",
        DeprecationWarning,
        stacklevel=3,
    )


def save(m, f, _extra_files=None) -> None:
    """`torch.jit.save`: dyngrad has no TorchScript archives; it raises."""
    raise NotImplementedError(
        "torch.jit.save is not supported by dyngrad (there is no TorchScript): save the "
        "state_dict with torch.save instead"
    )


def load(f, map_location=None, _extra_files=None):
    """`torch.jit.load`: dyngrad has no TorchScript archives; it raises."""
    raise NotImplementedError(
        "torch.jit.load is not supported by dyngrad (there is no TorchScript): load a "
        "state_dict saved with torch.save instead"
    )
