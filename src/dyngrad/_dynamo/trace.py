"""The op trace of a compiled call: what a replay runs again (See Note [Replay]).

While a call is being compiled, a Trace is told of every op (the op observer) and every
tensor made by a replayable builder (Note [Replayable sources] in ops/table/record.py). Each
becomes a step: the op's row, its arguments with each tensor named by where it comes from
(an earlier step's output, an argument of the call, or a tensor that existed before it), its
attributes. A tensor the trace cannot place, or anything it cannot run again the same way (an
in-place op, a sparse or non-NumPy array, a tensor's value read in Python), refuses the
replay with the reason; the call itself is never affected.
"""

from __future__ import annotations

import threading

import numpy as np

from .._tensor import Tensor
from ..runtime.dtypes import LOW_PRECISION
from ..runtime.sparse_coo import SparseCOO

__all__ = ["Trace", "Arg", "ArrayOf", "OpStep", "SourceStep"]

_ndarray = np.ndarray


class Arg:
    """An argument of the compiled call (its index in the flattened arguments)."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"Arg({self.index})"


class ArrayOf:
    """The array of a tensor (or an argument) where a step's attributes held an array."""

    __slots__ = ("of",)

    def __init__(self, of) -> None:
        self.of = of


class OpStep:
    __slots__ = ("op", "fwd", "args", "attrs", "outs", "fill_args", "fill_attrs", "node")

    def __init__(self, op, args, attrs, outs, fill_args, fill_attrs, node) -> None:
        self.op = op
        # a product's forward without its float16 wrapper when no input is float16 (the
        # dtypes of a replay are the trace's: See Note [Replay])
        fwd = op.fwd
        inner = getattr(fwd, "full_precision", None)
        if inner is not None and not any(
            isinstance(a, Tensor) and a._data.dtype in LOW_PRECISION for a in args
        ):
            fwd = inner
        self.fwd = fwd
        self.args = args  # tensors (outputs of earlier steps, or from before), Arg, numbers
        self.attrs = attrs
        self.outs = outs  # the tensors the op made at capture: a replay refills their arrays
        self.fill_args = fill_args  # whether `args` holds an Arg (resolved on each replay)
        self.fill_attrs = fill_attrs  # whether `attrs` holds an Arg or an ArrayOf
        self.node = node  # the node the op recorded at capture (None: no gradient)


class SourceStep:
    __slots__ = ("fn", "args", "kwargs", "out", "fill")

    def __init__(self, fn, args, kwargs, out, fill) -> None:
        self.fn, self.args, self.kwargs, self.out, self.fill = fn, args, kwargs, out, fill


class Trace:
    """The steps of one compiled call, as it runs (See the module docstring)."""

    def __init__(self, arguments: list) -> None:
        self.steps: list = []
        self.refusal: str | None = None
        self.made: dict = {}  # id(tensor) -> tensor made by a step (kept alive: ids stay valid)
        self.arrays: dict = {}  # id(array) -> the tensor (or Arg) whose array it is
        self.args: dict = {}  # id(argument tensor) -> Arg
        self.external: dict = {}  # id(tensor) -> tensor that existed before the call
        self.data: list = []  # (tensor, the array a step gave it)
        self.aliases: list = []  # (tensor, the made tensor whose array it shares)
        self._depth = 0
        self.thread = threading.get_ident()
        for i, a in enumerate(arguments):
            if isinstance(a, Tensor) and id(a) not in self.args:
                self.args[id(a)] = Arg(i)
                self.arrays.setdefault(id(a._data), self.args[id(a)])

    def refuse(self, reason: str) -> None:
        if self.refusal is None:
            self.refusal = reason

    # ---- what the call does --------------------------------------------------------------
    def op(self, op, args: tuple, attrs: dict, result) -> None:
        if self.refusal is not None or self._depth:
            return
        outs = result if type(result) is tuple else (result,)
        if any(o is a for o in outs for a in args):
            self.refuse(f"the in-place op {op.name} (replay runs out-of-place ops only)")
            return
        template = []
        fill_args = False
        for a in args:
            if isinstance(a, Tensor):
                a = self._place(a, op.name)
                fill_args = fill_args or type(a) is Arg
            elif isinstance(a, _ndarray):
                self.refuse(f"an array argument of {op.name}")
            template.append(a)
        fill = [False]
        attrs = {k: self._attr(v, op.name, fill) for k, v in attrs.items()} if attrs else attrs
        node = None
        for o in outs:
            if not isinstance(o, Tensor):
                self.refuse(f"{op.name} returned a {type(o).__name__}")
                return
            if type(o._data) is not _ndarray:
                self.refuse(f"{op.name} made a {type(o._data).__name__} (replay runs NumPy arrays)")
                return
            self._made(o)
            if node is None and o._grad_fn is not None:
                node = o._grad_fn
        self.steps.append(OpStep(op, tuple(template), attrs, outs, fill_args, fill[0], node))

    def source(self, fn, args: tuple, kwargs: dict):
        """Run a replayable builder (See Note [Replayable sources]) and note it."""
        if threading.get_ident() != self.thread:  # (the observer is the process's)
            return fn(*args, **kwargs)
        self._depth += 1
        try:
            out = fn(*args, **kwargs)
        finally:
            self._depth -= 1
        if self._depth or self.refusal is not None:
            return out
        fill = [False]
        args = tuple(self._attr(a, fn.__name__, fill) for a in args)
        kwargs = {k: self._attr(v, fn.__name__, fill) for k, v in kwargs.items()}
        if isinstance(out, Tensor):
            if out._requires_grad:
                self.refuse(
                    f"a tensor made with requires_grad=True inside the call ({fn.__name__})"
                )
            placeholder = out
        else:
            placeholder = Tensor._wrap(out)
        if type(placeholder._data) is not _ndarray:
            self.refuse(f"{fn.__name__} made a {type(placeholder._data).__name__}")
        self._made(placeholder)
        self.steps.append(SourceStep(fn, args, kwargs, placeholder, fill[0]))
        return out

    def value_read(self, what: str) -> None:
        self.refuse(f"a tensor's value was read in Python ({what})")

    # ---- placing tensors and arrays ------------------------------------------------------
    def _made(self, t: Tensor) -> None:
        self.made[id(t)] = t
        self.arrays[id(t._data)] = t
        self.data.append((t, t._data))

    def arrays_kept(self) -> bool:
        """Whether every tensor a step made still holds the array it was made with (a caller
        that swapped one afterwards, as `empty(memory_format=...)` does, was not traced)."""
        return all(t._data is data for t, data in self.data)

    def _place(self, t: Tensor, where: str):
        key = id(t)
        if key in self.made:
            return t
        arg = self.args.get(key)
        if arg is not None:
            return arg
        owner = self.arrays.get(id(t._data))
        if owner is not None:  # an alias made outside the ops (`detach`, `_wrap`): its array
            if type(owner) is Arg:
                self.refuse(f"an alias of an argument used by {where}")
                return owner
            # a node may save the alias itself: a replay points it at the new array too
            self.aliases.append((t, owner))
            self.made[key] = t
            self.data.append((t, t._data))
            return owner
        if type(t._data) is SparseCOO:
            self.refuse(f"a sparse tensor used by {where}")
        self.external[key] = t
        return t

    def _attr(self, value, where: str, fill: list):
        if isinstance(value, Tensor):
            placed = self._place(value, where)
            fill[0] = fill[0] or type(placed) is Arg
            return placed
        if isinstance(value, _ndarray):
            owner = self.arrays.get(id(value))
            if owner is None:
                self.refuse(f"an array of unknown origin in {where}'s attributes")
                return value
            fill[0] = True
            return ArrayOf(owner)
        if type(value) in (tuple, list):
            return type(value)(self._attr(v, where, fill) for v in value)
        if type(value) is dict:
            return {k: self._attr(v, where, fill) for k, v in value.items()}
        return value  # numbers, dtypes, generators: read, never written, by the ops
