"""The op trace of a compiled call: what a replay runs again (See Note [Replay]).

While a call is being compiled, a Trace is told of every op (the op observer) and every
tensor made by a replayable builder (Note [Replayable sources] in ops/table/record.py). Each
becomes a step: the op's row, its arguments with each tensor named by where it comes from
(an earlier step's output, an argument of the call, or a tensor that existed before it), its
attributes. A tensor the trace cannot place, or anything it cannot run again the same way (an
in-place op on a tensor autograd tracks, a sparse or non-NumPy array, a tensor's value read
in Python), refuses the replay with the reason; the call itself is never affected.

# Note [In-place steps]
# An in-place op is a step too: a replay writes the row's result into the tensor's array and
# counts the write on its version counter under the same name, as `apply_inplace` does.
#   - On a tensor outside autograd (a BatchNorm's `num_batches_tracked.add_(1)` under
#     no_grad, a counter, a mask filled in place) that is all.
#   - On a tensor the call made that requires grad (`ReLU(inplace=True)`, `out += identity`)
#     the write's node joins the captured graph as any op's, and the tensor's counter
#     restarts each replay from its traced version (a new counter: the old one may be the
#     last call's output's), so the captured nodes' recorded versions hold as in eager, and
#     a saved-then-written tensor raises at backward as it does in eager. The tensor must
#     not be a view, nor have been viewed before (its views' histories are rebuilt lazily),
#     and its node must save nothing but the op's inputs and output (no copy of the tensor
#     from before the write, which a replay would not make again).
#   - On an argument (the caller's tensor), an inference tensor, or any other tensor that
#     requires grad, the replay refuses.
# An op that writes some inputs in place in its forward (`mutates`: batch norm's running
# statistics) has those counters bumped again too. Every counted write while the call is
# traced is seen (`watch_bumps` in _tensor.py): one that no op step accounts for (a write
# into `.data`'s array outside the ops, such as an Embedding's max_norm renormalisation, an
# optimizer step) refuses the replay, which would not repeat it.
"""

from __future__ import annotations

import threading

import numpy as np

from .._tensor import Tensor, VersionCounter
from ..ops.table.record import Constant
from ..runtime.dtypes import LOW_PRECISION
from ..runtime.sparse_coo import SparseCOO

__all__ = ["Trace", "Arg", "ArrayOf", "OpStep", "SourceStep"]

_ndarray = np.ndarray


# ops whose output shape depends on the values of their inputs: a replay would run them on
# new values, but its captured graph (and every later step's shapes) follow the traced call
_DATA_SHAPED = frozenset({"nonzero", "masked_select"})


def _list_from_outside(value, outlives) -> bool:
    if type(value) is list:
        return outlives(value) or any(_list_from_outside(v, outlives) for v in value)
    if type(value) is tuple:
        return any(_list_from_outside(v, outlives) for v in value)
    if type(value) is dict:
        return any(_list_from_outside(v, outlives) for v in value.values())
    return False


def _picks_by_mask(attrs: dict) -> bool:
    # indexing with a boolean mask (`x[x > 0]`) picks as many elements as the mask holds
    key = attrs.get("key")
    parts = key if type(key) is tuple else (key,)
    return any(getattr(part, "dtype", None) == np.bool_ for part in parts)


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
    __slots__ = (
        "op",
        "fwd",
        "args",
        "attrs",
        "outs",
        "fill_args",
        "fill_attrs",
        "node",
        "into",
        "bumps",
    )

    def __init__(
        self, op, args, attrs, outs, fill_args, fill_attrs, node, into=None, bumps=()
    ) -> None:
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
        # an in-place op's tensor, with the name and line its version counter was bumped
        # with and the version it restarts from (tensor, op name, site, version or None); and
        # the inputs a row writes in place (`mutates`), as
        # (position, op name, site). See Note [In-place steps]
        self.into = into
        self.bumps = bumps


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
        self.bumps: list = []  # (counter, op name): counted writes no step has accounted for
        self.viewed: set = set()  # ids of the tensors an op made a view of
        self.owners: dict = {}  # id(alias) -> the made tensor whose array it shares
        # whether an object outlives the call (the watcher's answer): a list given to a
        # replayable builder must not, as it could change in place between calls
        self.outlives = None
        self._depth = 0
        self.thread = threading.get_ident()
        for i, a in enumerate(arguments):
            if isinstance(a, Tensor) and id(a) not in self.args:
                self.args[id(a)] = Arg(i)
                self.arrays.setdefault(id(a._data), self.args[id(a)])

    def bumped(self, counter, name: str) -> None:
        """A write was counted (See Note [In-place steps]); the op that made it, if any, is
        told to the trace just after."""
        if threading.get_ident() == self.thread and not self._depth:
            self.bumps.append((counter, name))

    def unaccounted(self) -> str | None:
        """The op name of a counted write no step accounts for, if any."""
        return self.bumps[0][1] if self.bumps else None

    def _accounted(self, counter) -> bool:
        for i, (c, _) in enumerate(self.bumps):
            if c is counter:
                del self.bumps[i]
                return True
        return False

    def refuse(self, reason: str) -> None:
        if self.refusal is None:
            self.refusal = reason

    # ---- what the call does --------------------------------------------------------------
    def op(self, op, args: tuple, attrs: dict, result) -> None:
        if self.refusal is not None or self._depth:
            return
        if op.name in _DATA_SHAPED or (op.name == "index" and _picks_by_mask(attrs)):
            self.refuse(f"the shape of {op.name}'s output depends on the data")
            return
        outs = result if type(result) is tuple else (result,)
        into = None
        if any(o is a for o in outs for a in args):
            into = self._inplace(op, args, outs)
            if into is None:
                return
            self._accounted(args[0]._version_counter)
        bumps = ()
        if op.mutates:
            bumps = tuple(
                (i, args[i]._version_counter.last_op, args[i]._version_counter.last_site)
                for i in op.mutates
                if isinstance(args[i], Tensor) and self._accounted(args[i]._version_counter)
            )
        if self.bumps:
            self.refuse(f"a tensor was written outside the traced ops ({self.bumps[0][1]})")
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
        if into is not None:  # (its node, if any, is the tensor's history now)
            node = into[0]._grad_fn if into[0]._requires_grad else None
            step = OpStep(op, tuple(template), attrs, (), fill_args, fill[0], node, into)
            self.steps.append(step)
            return
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
            if o._base is not None:
                self.viewed.add(id(o._base))
        self.steps.append(
            OpStep(op, tuple(template), attrs, outs, fill_args, fill[0], node, bumps=bumps)
        )

    def _inplace(self, op, args: tuple, outs: tuple):
        """The written tensor of an in-place op a replay can run again, with its counter's
        bump (See Note [In-place steps]); None, the replay refused, if it can't."""
        target = args[0]
        if len(outs) != 1 or outs[0] is not target:
            self.refuse(f"the in-place op {op.name} wrote a tensor other than its first")
            return None
        if id(target) in self.args or self.arrays.get(id(target._data)) in self.args.values():
            self.refuse(f"the in-place op {op.name} on an argument of the call")
            return None
        counter = target._version_counter
        if type(counter) is not VersionCounter or type(target._data) is not _ndarray:
            self.refuse(f"the in-place op {op.name} on an inference or non-NumPy tensor")
            return None
        base = target._base
        made = id(target) in self.made
        if target._requires_grad or (base is not None and base._requires_grad):
            why = self._unrewritable(target, made, args)
            if why is not None:
                self.refuse(f"the in-place op {op.name} on a tensor that requires grad ({why})")
                return None
        placed = self._place(target, op.name)
        if placed is not target:  # an alias (`t.detach()`) of a tensor the call made: the
            # write goes into that tensor's array, which the alias only gets after the replay
            target, made = placed, True
        # a tensor the call made starts each replay at the version it had in the trace, so
        # that its writes count to the versions the captured nodes recorded
        restart = counter.value - 1 if made else None
        return (target, counter.last_op, counter.last_site, restart)

    def _unrewritable(self, target, made: bool, args: tuple) -> str | None:
        # The history of a tensor written in place is rewritten: its new node joins the
        # captured graph. A replay redoes that for a tensor the call made and never viewed,
        # whose node saved nothing but the op's inputs and output (no copy of the tensor as
        # it was before the write, which a replay would not make again).
        if not made or target._base is not None or id(target) in self.viewed:
            return "one the call made and never viewed can be written in a replay"
        node = target._grad_fn
        inputs = {id(a) for a in args}
        for value in (node._saved or {}).values() if node is not None else ():
            if isinstance(value, Tensor) and id(value) not in inputs:
                return "its node saved a copy of it from before the write"
        return None

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
        if self.outlives is not None and _list_from_outside((args, kwargs), self.outlives):
            self.refuse(f"a list made before the call was given to {fn.__name__.strip('_')}")
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
        owner = self.owners.get(key)
        if owner is not None:  # an alias: its array is its owner's (during a replay, too)
            return owner
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
            self.owners[key] = owner
            self.made[key] = t
            self.data.append((t, t._data))
            return owner
        if type(t._data) is SparseCOO:
            self.refuse(f"a sparse tensor used by {where}")
        self.external[key] = t
        return t

    def _attr(self, value, where: str, fill: list):
        if type(value) is Constant:  # built from Python values alone: the same on a replay
            return value
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
