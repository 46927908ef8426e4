"""What a captured graph assumed: guards on the inputs and global state, checked on each call.

# Note [Guards]
# A compiled call is keyed, as Dynamo keys its cache entries, by: each tensor argument's rank,
# sizes (a size that changed once is dynamic from then on: PyTorch's automatic dynamic
# shapes), dtype and requires_grad; each Python scalar argument's value and each other
# argument's type; grad mode; autocast state; and for a module its identity, its modules'
# training flags and its parameters' identity. A call whose guards all hold reuses the
# entry; one that fails recompiles (logged under TORCH_LOGS=recompiles with the failures, in
# PyTorch's words). Values never depend on the entry (See Note [Capture by running]): guards
# decide what is logged, counted and explained; whether a call is replayed instead of run is
# decided by the replay's own checks (Note [Replay] in replay.py), never by these.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._tensor import Tensor
from ..amp.autocast_mode import get_autocast_dtype, is_autocast_enabled
from ..graph.grad_mode import state as grad_state

__all__ = ["Guards", "observe", "failures", "widen"]

_SCALARS = (int, float, bool, str, type(None))


@dataclass
class Guards:
    tensors: dict  # name -> [dtype, list of sizes (None: dynamic), requires_grad]
    # name -> ("value", v, type(v)) (the type too, so that `==` between two Guards, the
    # cache's fast hit, tells 1 from 1.0 and True, as `failures` does) or ("type", type)
    values: dict
    grad_mode: bool
    autocast: tuple
    module: tuple | None  # (id, training flags, parameter ids)


def observe(names: list, args: tuple, kwargs: dict, module, dynamic) -> Guards:
    """The guards the arguments and state of this call would install."""
    tensors: dict = {}
    values: dict = {}
    named = list(zip(names, args)) + list(kwargs.items())
    for name, value in named:
        if isinstance(value, Tensor):
            sizes = [None] * value.dim() if dynamic else list(value.shape)
            tensors[name] = [value.dtype, sizes, value.requires_grad]
        elif isinstance(value, _SCALARS):
            values[name] = ("value", value, type(value))
        else:
            values[name] = ("type", type(value))
    state = None
    if module is not None:  # one walk of the modules, not one per question
        flags: list = []
        params: list = []
        _module_state(module, flags, params, set())
        state = (id(module), tuple(flags), tuple(params))
    autocast = (is_autocast_enabled("cpu"), get_autocast_dtype("cpu"))
    return Guards(tensors, values, grad_state.enabled, autocast, state)


def _module_state(module, flags: list, params: list, seen: set) -> None:
    # `module.modules()`'s order and sharing, without its names (this runs on every call)
    seen.add(id(module))
    flags.append(module.training)
    for p in module._parameters.values():
        if p is not None:
            params.append(id(p))
    for child in module._modules.values():
        if child is not None and id(child) not in seen:
            _module_state(child, flags, params, seen)


def failures(entry: Guards, now: Guards) -> list:
    """The guards of `entry` that `now` fails, each in PyTorch's words (empty: it holds)."""
    failed = []
    for name, (dtype, sizes, requires_grad) in entry.tensors.items():
        if name not in now.tensors:
            failed.append(f"isinstance(L['{name}'], Tensor)")
            continue
        now_dtype, now_sizes, now_rg = now.tensors[name]
        if now_dtype != dtype:
            failed.append(f"tensor '{name}' dtype mismatch. expected {dtype}, actual {now_dtype}")
        elif len(now_sizes) != len(sizes):
            failed.append(
                f"tensor '{name}' rank mismatch. expected {len(sizes)}, actual {len(now_sizes)}"
            )
        elif now_rg != requires_grad:
            failed.append(
                f"tensor '{name}' requires_grad mismatch. "
                f"expected requires_grad={int(requires_grad)}"
            )
        else:
            for i, (size, now_size) in enumerate(zip(sizes, now_sizes)):
                if size is not None and size != now_size:
                    failed.append(
                        f"tensor '{name}' size mismatch at index {i}. "
                        f"expected {size}, actual {now_size}"
                    )
                    break
    for name, (kind, value, *_) in entry.values.items():
        now_kind, now_value, *_ = now.values.get(name, (None, None))
        if kind == "value" and (
            now_kind != kind or now_value != value or type(now_value) is not type(value)
        ):
            failed.append(f"L['{name}'] == {value!r}")
        elif kind == "type" and now_value is not value:
            failed.append(f"type(L['{name}']) is {value.__name__}")
    if entry.grad_mode != now.grad_mode:
        failed.append("GLOBAL_STATE changed: grad_mode ")
    if entry.autocast != now.autocast:
        failed.append("GLOBAL_STATE changed: autocast ")
    if entry.module is not None and now.module is not None:
        if entry.module[0] != now.module[0]:
            failed.append(f"___check_obj_id(L['self'], {entry.module[0]})")
        elif entry.module[1] != now.module[1]:
            failed.append(f"L['self'].training == {entry.module[1][0]}")
        elif entry.module[2] != now.module[2]:
            failed.append("___check_obj_id(L['self'].parameters)")
    return failed


def widen(entries: list, now: Guards) -> Guards:
    """`now`, with each size that differs from an earlier entry of the same rank made dynamic
    (PyTorch's automatic dynamic shapes: the second size seen stops the recompiles)."""
    for entry in entries:
        for name, (dtype, sizes, _) in entry.tensors.items():
            if name not in now.tensors:
                continue
            now_sizes = now.tensors[name][1]
            if now.tensors[name][0] == dtype and len(now_sizes) == len(sizes):
                now.tensors[name][1] = [
                    None if s is None or s != n else n for s, n in zip(sizes, now_sizes)
                ]
    return now
